// The share link: the model text in the URL hash, as base64 of its UTF-8 bytes.

const PREFIX = '#model=';

/** The hash holding `text`. */
export function toShareHash(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return PREFIX + btoa(binary);
}

/** The text a hash holds, or null when it holds none (or not valid base64 of UTF-8). */
export function fromShareHash(hash: string): string | null {
  if (!hash.startsWith(PREFIX)) return null;
  try {
    const binary = atob(decodeURIComponent(hash.slice(PREFIX.length)));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
