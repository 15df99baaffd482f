// Share by URL: the text, compressed with deflate (the browser's own
// CompressionStream) and written in base64url, goes in the fragment
// ("#code=..."), which browsers never send to a server.

const prefix = "code=";

function toBase64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(s) {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) {
    out[i] = b.charCodeAt(i);
  }
  return out;
}

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** The fragment ("code=...") that holds text. */
export async function encodeFragment(text) {
  const packed = await pipe(new TextEncoder().encode(text), new CompressionStream("deflate-raw"));
  return prefix + toBase64url(packed);
}

/** The text a fragment holds (with or without its "#"), or null. */
export async function decodeFragment(fragment) {
  const f = fragment.replace(/^#/, "");
  if (!f.startsWith(prefix)) {
    return null;
  }
  try {
    const bytes = await pipe(fromBase64url(f.slice(prefix.length)), new DecompressionStream("deflate-raw"));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
