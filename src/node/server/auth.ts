/**
 * The guards of browser mode. A page in any other tab of the user's browser can send requests to
 * 127.0.0.1, so every request must prove it came from someone who saw the printed URL (the token,
 * then a cookie), and name our own host (which defeats DNS rebinding, where an attacker's domain
 * resolves to 127.0.0.1 and the browser sends `Host: attacker.example`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** 32 random bytes, base64url: unguessable and safe in a URL and a cookie without escaping. */
export function createSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison, so the time a wrong guess takes says nothing about the right one. */
export function tokensEqual(expected: string, candidate: string | undefined | null): boolean {
  if (typeof candidate !== 'string') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(candidate, 'utf8');
  // timingSafeEqual needs equal lengths; compare against itself to spend the same time anyway.
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/** The value of one cookie from a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

export interface HostPolicy {
  port: number;
  /** The address the server is bound to (`127.0.0.1`, or another with --allow-remote). */
  bindHost: string;
}

/**
 * Which Host header values name this server. Loopback names always; with a remote bind, the bound
 * address itself, or any IP literal when bound to a wildcard address. DNS names other than
 * localhost are refused: those are what a rebinding attack uses.
 */
export function isAllowedHostHeader(hostHeader: string | undefined, policy: HostPolicy): boolean {
  if (!hostHeader) return false;
  const parsed = splitHostPort(hostHeader);
  if (!parsed || parsed.port !== policy.port) return false;
  const host = parsed.host.toLowerCase();
  if (host === 'localhost' || host === '127.0.0.1' || host === '::1') return true;
  const bind = policy.bindHost.replace(/^\[|\]$/g, '').toLowerCase();
  if (bind === '0.0.0.0' || bind === '::') return isIP(host) !== 0;
  return host === bind;
}

/** Origin must be exactly http://<Host> (same origin as the page we served). */
export function isSameOrigin(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true; // Non-browser clients send none; they cannot ride a user's cookie.
  if (!hostHeader) return false;
  return origin.toLowerCase() === `http://${hostHeader.toLowerCase()}`;
}

/** `host:port` or `[v6]:port` → parts, or undefined when malformed or without a port. */
export function splitHostPort(value: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: (match[1] ?? match[2])!, port };
}
