// What kind of place an IP address leads to. Pure: the network proxy
// (infra/agent/confine/network-proxy.ts) asks it about every address it is about to
// connect to, so that an allowed name cannot lead to this machine or the
// local network.

/** The kinds of address a confined agent reaches only when an entry names them with a port. */
export type AddressKind =
  'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

/** How a refusal names each kind. */
export const ADDRESS_KIND_TEXT: Readonly<Record<AddressKind, string>> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  'link-local': 'a link-local address',
  unspecified: 'an unspecified address (this machine)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

/** The four bytes of a dotted-decimal IPv4 address, or null. */
function ipv4Bytes(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

/** The eight 16-bit words of an IPv6 address (zone id dropped, dotted tail read), or null. */
function ipv6Words(text: string): number[] | null {
  let s = text.split('%')[0] ?? '';
  const last = s.lastIndexOf(':');
  if (last < 0) return null;
  const tail = s.slice(last + 1);
  if (tail.includes('.')) {
    const v4 = ipv4Bytes(tail);
    if (!v4) return null;
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    s = `${s.slice(0, last + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const read = (half: string): number[] | null => {
    if (half === '') return [];
    const groups = half.split(':');
    if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
    return groups.map((g) => parseInt(g, 16));
  };
  const head = read(halves[0] ?? '');
  const rest = halves.length === 2 ? read(halves[1] ?? '') : [];
  if (!head || !rest) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - rest.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...rest] : null;
}

function ipv4Kind([a = 0, b = 0, c = 0, d = 0]: readonly number[]): AddressKind | null {
  if (a === 0) return 'unspecified'; // 0.0.0.0/8: "this network", 0.0.0.0 reaches this machine
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private'; // shared address space (CGNAT)
  if (a === 169 && b === 254) return 'link-local';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast';
  if (a >= 240) return 'reserved';
  return null;
}

/** The IPv4 address an IPv6 address carries and leads to (mapped, NAT64, 6to4), or null. */
function embeddedIpv4(w: readonly number[]): number[] | null {
  const bytes = (hi: number, lo: number): number[] => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  const zeros = (from: number, to: number): boolean => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && w[5] === 0xffff) return bytes(w[6] ?? 0, w[7] ?? 0); // ::ffff:a.b.c.d
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return bytes(w[6] ?? 0, w[7] ?? 0); // NAT64
  if (w[0] === 0x2002) return bytes(w[1] ?? 0, w[2] ?? 0); // 6to4
  return null;
}

function ipv6Kind(w: readonly number[]): AddressKind | null {
  const v4 = embeddedIpv4(w);
  if (v4) return ipv4Kind(v4);
  const first = w[0] ?? 0;
  if (w.every((x) => x === 0)) return 'unspecified';
  if (w.slice(0, 7).every((x) => x === 0) && w[7] === 1) return 'loopback';
  if (first < 0x0100) return 'reserved'; // ::/8: IPv4-compatible and other obsolete forms
  if (first === 0x64 && w[1] === 0xff9b && w[2] === 1) return 'private'; // local-use NAT64
  if ((first & 0xfe00) === 0xfc00) return 'private'; // unique local, fc00::/7
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/**
 * The kind of an IPv4 or IPv6 address that leads to this machine or a local
 * network; null for a public one. Text that is not an address reads as
 * 'reserved' (refused, not let through).
 */
export function addressKind(address: string): AddressKind | null {
  const v4 = ipv4Bytes(address);
  if (v4) return ipv4Kind(v4);
  const v6 = ipv6Words(address);
  return v6 ? ipv6Kind(v6) : 'reserved';
}

/**
 * One spelling per address, to compare two: dotted IPv4 (an IPv4-mapped IPv6
 * address included), or the eight IPv6 words; null when not an address.
 */
export function canonicalAddress(address: string): string | null {
  const v4 = ipv4Bytes(address);
  if (v4) return v4.join('.');
  const w = ipv6Words(address);
  if (!w) return null;
  if (w.slice(0, 5).every((x) => x === 0) && w[5] === 0xffff)
    return [w[6] ?? 0, w[7] ?? 0].flatMap((x) => [x >> 8, x & 255]).join('.');
  return w.map((x) => x.toString(16)).join(':');
}
