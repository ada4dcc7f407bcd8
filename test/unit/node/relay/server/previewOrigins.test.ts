/**
 * Where the relay serves previews (src/node/relay/server/preview/previewOrigins.ts): every preview
 * on an origin of its own — labels, the preview domain and its checks, which Host is a preview's
 * for each relay setup, when previews are refused, one-time tickets, the session cookie.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkPreviewDomain,
  hasPreviewSession,
  newPreviewLabel,
  parsePreviewDomain,
  PreviewLabel,
  PreviewOriginConstants,
  PreviewOrigins,
  previewSessionCookie,
  PreviewTickets,
} from '../../../../../src/node/relay/server/preview/previewOrigins.ts';

const label = 'pvabcdefghijklmnopqrstuvwxyz';
const previewOrigin = `https://${label}.preview.example.com`;

describe('preview origins', () => {
  it('makes labels of 26 random lowercase letters and digits after pv', () => {
    const labels = new Set(Array.from({ length: 200 }, () => newPreviewLabel()));
    assert.equal(labels.size, 200);
    for (const made of labels) assert.match(made, PreviewLabel);
    assert.doesNotMatch('pv-abcdefghijklmnopqrstuvwx', PreviewLabel, 'a preview id is no label');
    assert.doesNotMatch('pvABCDEFGHIJKLMNOPQRSTUVWXYZ', PreviewLabel);
  });

  it('takes a host name as --preview-domain, and says what is wrong with anything else', () => {
    assert.equal(parsePreviewDomain('Preview.Example.com'), 'preview.example.com');
    assert.equal(parsePreviewDomain('localhost'), 'localhost');
    for (const [text, why] of [
      ['https://preview.example.com', /no scheme, port, path or wildcard/],
      ['preview.example.com:8443', /no scheme, port, path or wildcard/],
      ['preview.example.com/x', /no scheme, port, path or wildcard/],
      ['*.preview.example.com', /no scheme, port, path or wildcard/],
      ['', /no scheme/],
      ['-bad.example.com', /"-bad" is not a DNS label/],
      ['a..b', /"" is not a DNS label/],
      ['under_score.example.com', /"under_score" is not a DNS label/],
      ['10.0.0.1', /an IP address has no subdomains/],
      [`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}`, /at most 224 characters/],
    ] as const) {
      assert.throws(() => parsePreviewDomain(text), (error: Error) => why.test(error.message) && error.message.includes('--preview-domain must be a host name'), text);
    }
    assert.throws(() => checkPreviewDomain('example.com', new URL('https://relay.example.com')), /would hold the relay's own host relay\.example\.com/);
    assert.throws(() => checkPreviewDomain('relay.example.com', new URL('https://relay.example.com')), /would hold/);
    checkPreviewDomain('preview.relay.example.com', new URL('https://relay.example.com'));
    checkPreviewDomain('relay-preview.example.net', new URL('https://relay.example.com'));
  });

  it('by default (no --public-url): http://<label>.localhost:<relay port>; previews opened only from a loopback page', () => {
    const origins = new PreviewOrigins({ port: () => 7600 });
    assert.equal(origins.originOf(label), `http://${label}.localhost:7600`);
    assert.equal(origins.pattern, 'http://<label>.localhost:7600');
    assert.equal(origins.secure, false);
    assert.deepEqual(origins.classify(`${label}.localhost:7600`), { label });
    assert.deepEqual(origins.classify(`${label.toUpperCase()}.LOCALHOST:7600`), { label }, 'host names fold case');
    assert.deepEqual(origins.classify(`${label}.localhost:7601`), { label: undefined }, 'another port is no preview of this relay');
    assert.deepEqual(origins.classify(`${label}.localhost`), { label: undefined });
    assert.deepEqual(origins.classify('www.localhost:7600'), { label: undefined }, 'under the domain but no label: a preview host all the same, never the relay');
    assert.deepEqual(origins.classify(`x.${label}.localhost:7600`), { label: undefined });
    for (const relayHost of ['localhost:7600', '127.0.0.1:7600', '[::1]:7600', `${label}.localhost.evil.example:7600`, undefined]) assert.equal(origins.classify(relayHost), undefined, String(relayHost));
    assert.equal(origins.refusal('http://127.0.0.1:7600'), undefined);
    assert.equal(origins.refusal('http://localhost:7600'), undefined);
    const remote = origins.refusal('http://192.168.1.5:7600');
    assert.equal(remote?.status, 501);
    assert.match(remote!.message, /only a browser on the relay’s own machine reaches/);
  });

  it('with --preview-domain: the scheme and port of --public-url; with --public-url alone: refused (501)', () => {
    const https = new PreviewOrigins({ previewDomain: 'preview.example.com', publicUrl: new URL('https://relay.example.com'), port: () => 7600 });
    assert.equal(https.originOf(label), previewOrigin);
    assert.equal(https.secure, true);
    assert.deepEqual(https.classify(`${label}.preview.example.com`), { label });
    assert.deepEqual(https.classify(`${label}.preview.example.com:443`), { label }, 'the default port written out');
    assert.deepEqual(https.classify(`${label}.preview.example.com:7600`), { label: undefined });
    assert.equal(https.classify('relay.example.com'), undefined);
    assert.equal(https.refusal('https://relay.example.com'), undefined);
    const withPort = new PreviewOrigins({ previewDomain: 'preview.example.com', publicUrl: new URL('https://relay.example.com:8443'), port: () => 7600 });
    assert.equal(withPort.originOf(label), `https://${label}.preview.example.com:8443`);
    const lan = new PreviewOrigins({ previewDomain: 'dev.lan', port: () => 7600 });
    assert.equal(lan.originOf(label), `http://${label}.dev.lan:7600`);
    assert.equal(lan.refusal('http://192.168.1.5:7600'), undefined, 'a preview domain works from any machine');

    const refused = new PreviewOrigins({ publicUrl: new URL('https://relay.example.com'), port: () => 7600 });
    assert.equal(refused.pattern, undefined);
    assert.equal(refused.classify(`${label}.localhost:7600`), undefined);
    const page = refused.refusal('https://relay.example.com');
    assert.equal(page?.status, 501);
    assert.match(page!.message, /Start the relay with --preview-domain <domain>/);
    assert.match(page!.message, /act as the remote view/);
    assert.throws(() => new PreviewOrigins({ previewDomain: 'example.com', publicUrl: new URL('https://relay.example.com'), port: () => 1 }), /would hold/);
  });

  it('tickets work once, for a minute, and only for what they were minted for', () => {
    const tickets = new PreviewTickets();
    const now = 1_000_000;
    const ticket = tickets.mint('home', 'pv-1', now);
    assert.match(ticket, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
    assert.deepEqual(tickets.consume(ticket, now + 1), { machineId: 'home', previewId: 'pv-1' });
    assert.equal(tickets.consume(ticket, now + 2), undefined, 'used');
    const late = tickets.mint('home', 'pv-1', now);
    assert.equal(tickets.consume(late, now + PreviewOriginConstants.ticketLifetimeMs), undefined, 'expired');
    assert.equal(tickets.consume('not a ticket'), undefined);
    assert.equal(tickets.consume('A'.repeat(43)), undefined);
    for (let index = 0; index < PreviewOriginConstants.maxTickets + 10; index++) tickets.mint('home', `pv-${index}`, now);
    assert.ok(tickets.size <= PreviewOriginConstants.maxTickets, `${tickets.size} tickets kept`);
  });

  it('sets the session cookie host-only and HttpOnly, and checks it among the Cookie header’s', () => {
    assert.equal(previewSessionCookie('s3cret', false), 'sb_preview_session=s3cret; HttpOnly; SameSite=Lax; Path=/');
    assert.equal(previewSessionCookie('s3cret', true), 'sb_preview_session=s3cret; HttpOnly; SameSite=Lax; Path=/; Secure');
    assert.doesNotMatch(previewSessionCookie('s3cret', true), /Domain/i);
    assert.equal(hasPreviewSession('a=1; sb_preview_session=s3cret', 's3cret'), true);
    assert.equal(hasPreviewSession('sb_preview_session=planted; sb_preview_session=s3cret', 's3cret'), true, 'a cookie a page script planted does not shadow it');
    assert.equal(hasPreviewSession('sb_preview_session=other', 's3cret'), false);
    assert.equal(hasPreviewSession('sb_preview_session=', 's3cret'), false);
    assert.equal(hasPreviewSession(undefined, 's3cret'), false);
  });
});

