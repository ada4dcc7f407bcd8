/**
 * Every preview is served from an origin of its own, never the relay's (docs/relay.md "Dev-server
 * previews — On the relay", docs/security.md §8). A dev page runs whatever scripts its app and its
 * dependencies bring; on the relay's origin those scripts could open `/ws/ui` with every viewer
 * cookie of the browser (same origin, so the Origin check passes) and type into the machines'
 * shells, read the remote view, set cookies on the relay's host or register a service worker over
 * it. On `<label>.<preview domain>` none of the relay's cookies is ever sent, `/ws/ui` refuses the
 * Origin, and the browser's same-origin policy keeps the page away from the remote view.
 *
 * - The origin: `<scheme>://<label>.<domain>[:port]`, `<label>` = `pv` + 26 random `[a-z0-9]`,
 *   fresh per preview. `--preview-domain <domain>` (wildcard DNS and certificate for `*.<domain>`
 *   pointed at the relay): the scheme and port of `--public-url` (http and the relay's port
 *   without one). Without either flag the domain is `localhost` with the relay's port: browsers
 *   resolve every `*.localhost` to loopback, and `<label>.localhost` is another site than
 *   `127.0.0.1` / `localhost`. With `--public-url` but no `--preview-domain`, previews are refused
 *   (501): the relay has no origin to give them.
 * - The way in: the open endpoint (on the relay's origin, viewer cookie) mints a one-time ticket
 *   (32 random bytes, 60 s, bound to machine + preview) and redirects to
 *   `<preview origin>/__switchboard/enter?ticket=…`, which trades it for the preview's session
 *   cookie (a per-preview secret, HttpOnly, SameSite=Lax, host-only).
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost, splitHostPort } from '../../../server/auth.ts';
import type { PreviewPage } from './previewPages.ts';

export const PreviewOriginConstants = {
  /** A ticket is good for this long after the open endpoint minted it. */
  ticketLifetimeMs: 60_000,
  /** Outstanding tickets kept at most (the oldest go first): a flood of opens cannot grow memory. */
  maxTickets: 4096,
  /** Random characters after `pv` in a preview's label (26 of 36: about 134 bits). */
  labelRandomChars: 26,
} as const;

/** A preview's DNS label: lowercase, so it survives browsers and proxies that fold case. */
export const PreviewLabel = /^pv[a-z0-9]{26}$/;

/** The preview origin's own address that trades a ticket for the session cookie. */
export const PREVIEW_ENTER_PATH = '/__switchboard/enter';

/** The preview's session cookie, set on its own host only; never passed on to the dev server. */
export const PREVIEW_SESSION_COOKIE = 'sb_preview_session';

const labelAlphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function newPreviewLabel(): string {
  let label = 'pv';
  for (let index = 0; index < PreviewOriginConstants.labelRandomChars; index++) label += labelAlphabet[randomInt(labelAlphabet.length)];
  return label;
}

/** 32 random bytes, base64url: a ticket or a session secret. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The Set-Cookie of a preview's session: host-only (no Domain), HttpOnly, SameSite=Lax; Secure over https. */
export function previewSessionCookie(secret: string, secure: boolean): string {
  return `${PREVIEW_SESSION_COOKIE}=${secret}; HttpOnly; SameSite=Lax; Path=/${secure ? '; Secure' : ''}`;
}

/** Whether any `sb_preview_session` in the Cookie header is this preview's secret (constant-time). */
export function hasPreviewSession(cookieHeader: string | undefined, secret: string): boolean {
  if (!cookieHeader) return false;
  const expected = createHash('sha256').update(secret).digest();
  let found = false;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== PREVIEW_SESSION_COOKIE) continue;
    // Hashes have one length, so timingSafeEqual compares every candidate in the same time.
    if (timingSafeEqual(createHash('sha256').update(part.slice(eq + 1).trim()).digest(), expected)) found = true;
  }
  return found;
}

/** The longest domain that still leaves room for `<label>.` in a 253-character host name. */
const maxDomainLength = 253 - (2 + PreviewOriginConstants.labelRandomChars + 1);

/**
 * `--preview-domain`: a host name (`preview.example.com`), nothing else. Returns it lowercase;
 * throws an Error whose message tells the user what is wrong.
 */
export function parsePreviewDomain(text: string): string {
  const domain = text.trim().toLowerCase();
  const shape = `--preview-domain must be a host name like preview.example.com (wildcard DNS and a certificate for *.<domain> pointing at the relay), got ${JSON.stringify(text)}`;
  if (domain === '' || /[/:@?#\s*[\]\\]/.test(domain)) throw new Error(`${shape}: no scheme, port, path or wildcard`);
  if (domain.length > maxDomainLength) throw new Error(`${shape}: at most ${maxDomainLength} characters (a preview's label goes in front)`);
  const labels = domain.split('.');
  for (const label of labels) {
    if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) throw new Error(`${shape}: ${JSON.stringify(label)} is not a DNS label (letters, digits, inner hyphens; 1–63 characters)`);
  }
  if (/^\d+$/.test(labels.at(-1)!)) throw new Error(`${shape}: an IP address has no subdomains`);
  return domain;
}

/** The relay's own host must not be a preview host (its label would be taken for a preview's). */
export function checkPreviewDomain(domain: string, publicUrl: URL | undefined): void {
  const host = publicUrl?.hostname.toLowerCase();
  if (host !== undefined && (host === domain || host.endsWith(`.${domain}`))) {
    throw new Error(`--preview-domain ${domain} would hold the relay's own host ${host}; give a domain of its own (e.g. preview.${host}, or another registrable domain)`);
  }
}

export interface PreviewOriginsOptions {
  /** `--preview-domain`, validated by parsePreviewDomain. */
  previewDomain?: string | undefined;
  publicUrl?: URL | undefined;
  /** The port the relay listens on (known once listening). */
  port: () => number;
}

/** Where a relay's previews live: their origins, and which Host headers are a preview's. */
export class PreviewOrigins {
  readonly #options: PreviewOriginsOptions;
  /** undefined: previews are refused (a public URL without a preview domain). */
  readonly domain: string | undefined;
  readonly secure: boolean;

  constructor(options: PreviewOriginsOptions) {
    this.#options = options;
    if (options.previewDomain !== undefined) checkPreviewDomain(options.previewDomain, options.publicUrl);
    this.domain = options.previewDomain ?? (options.publicUrl ? undefined : 'localhost');
    this.secure = options.previewDomain !== undefined && options.publicUrl?.protocol === 'https:';
  }

  get #scheme(): string {
    return this.secure ? 'https' : 'http';
  }

  /** The port in the preview's host, or undefined for the scheme's default. */
  get #port(): number | undefined {
    const { publicUrl, previewDomain } = this.#options;
    if (previewDomain !== undefined && publicUrl) return publicUrl.port === '' ? undefined : Number(publicUrl.port);
    return this.#options.port();
  }

  originOf(label: string): string {
    const port = this.#port;
    return `${this.#scheme}://${label}.${this.domain ?? 'invalid'}${port === undefined ? '' : `:${port}`}`;
  }

  /** How the origin of a preview looks, for logs and the CLI (`http://<label>.localhost:7600`). */
  get pattern(): string | undefined {
    return this.domain === undefined ? undefined : this.originOf('<label>');
  }

  /**
   * A Host header under the preview domain: `{label}` when it names a preview host as this relay
   * serves them (the label still has to be an open preview's), `{label: undefined}` for any other
   * name under the domain; undefined when the Host is not under the preview domain at all.
   */
  classify(hostHeader: string | undefined): { label: string | undefined } | undefined {
    const domain = this.domain;
    if (domain === undefined || !hostHeader) return undefined;
    const text = hostHeader.trim().toLowerCase();
    const withPort = splitHostPort(text);
    const hostname = (withPort ? withPort.host : text).replace(/\.$/, '');
    if (!hostname.endsWith(`.${domain}`)) return undefined;
    const label = hostname.slice(0, -(domain.length + 1));
    const expected = this.#port ?? (this.secure ? 443 : 80);
    const port = withPort?.port ?? (this.secure ? 443 : 80);
    if (port !== expected || !PreviewLabel.test(label)) return { label: undefined };
    return { label };
  }

  /**
   * Why a preview cannot be opened from a page of `siteOrigin` (the relay's origin the open request
   * came to), or undefined when it can.
   */
  refusal(siteOrigin: string): PreviewPage | undefined {
    if (this.domain === undefined) {
      return {
        status: 501,
        title: 'Previews need --preview-domain',
        message:
          'This relay has a public URL but no preview domain, so it has no origin of their own to serve previews from, and it will not serve them from its own: ' +
          "a dev page's scripts would then act as the remote view, with your sign-in to every machine. Start the relay with --preview-domain <domain> " +
          '(wildcard DNS and a certificate for *.<domain> pointing at it; docs/relay.md "Dev-server previews").',
      };
    }
    if (this.#options.previewDomain === undefined && !isLoopbackHost(new URL(siteOrigin).hostname)) {
      return {
        status: 501,
        title: 'Previews need --preview-domain',
        message:
          'Without --preview-domain, previews live on <label>.localhost, which only a browser on the relay’s own machine reaches. To preview from another machine, ' +
          'start the relay with --public-url and --preview-domain <domain> (wildcard DNS and a certificate for *.<domain> pointing at it).',
      };
    }
    return undefined;
  }
}

interface Ticket {
  machineId: string;
  previewId: string;
  expiresAt: number;
}

/** One-time tickets from the open endpoint to a preview's origin (kept by their SHA-256). */
export class PreviewTickets {
  readonly #tickets = new Map<string, Ticket>();

  mint(machineId: string, previewId: string, now = Date.now()): string {
    for (const [key, ticket] of this.#tickets) {
      if (ticket.expiresAt > now && this.#tickets.size < PreviewOriginConstants.maxTickets) break;
      this.#tickets.delete(key);
    }
    const ticket = newSecret();
    this.#tickets.set(digest(ticket), { machineId, previewId, expiresAt: now + PreviewOriginConstants.ticketLifetimeMs });
    return ticket;
  }

  /** The preview a ticket was minted for, once; undefined when unknown, used or expired. */
  consume(ticket: string, now = Date.now()): { machineId: string; previewId: string } | undefined {
    if (!/^[A-Za-z0-9_-]{43}$/.test(ticket)) return undefined;
    const key = digest(ticket);
    const found = this.#tickets.get(key);
    if (!found) return undefined;
    this.#tickets.delete(key);
    return found.expiresAt > now ? { machineId: found.machineId, previewId: found.previewId } : undefined;
  }

  get size(): number {
    return this.#tickets.size;
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
