/** What an uploaded avatar may be, and how its bytes prove it (a Content-Type header alone proves nothing). */

export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type AvatarType = (typeof AVATAR_TYPES)[number];

/** 1 MiB, the service's request body limit (DECISIONS §3 and §8). */
export const AVATAR_MAX_BYTES = 1024 * 1024;

/** The media type of a Content-Type header, lower-cased and without parameters, when it is an avatar type. */
export function avatarTypeOf(contentType: string | undefined): AvatarType | undefined {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return AVATAR_TYPES.find((type) => type === mediaType);
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);

/** The image type the bytes' signature ("magic bytes") shows, if any of the accepted ones. */
export function sniffImageType(bytes: Uint8Array): AvatarType | undefined {
  if (startsWith(bytes, PNG)) return 'image/png';
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  // RIFF container: "RIFF", 4 bytes of size, then the form type "WEBP".
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  return undefined;
}
