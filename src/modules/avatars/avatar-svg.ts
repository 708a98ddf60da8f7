/** The generated avatar of a user without an upload: initials on a colour derived from the id. */

/** Up to two initials: the first letter or digit of the first and of the last word; "?" when there is none. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const firstSign = (word: string) => Array.from(word).find((char) => /[\p{L}\p{N}]/u.test(char));
  const picked = [words[0], words.length > 1 ? words.at(-1) : undefined]
    .map((word) => (word === undefined ? undefined : firstSign(word)))
    .filter((char): char is string => char !== undefined);
  return picked.length === 0 ? '?' : picked.join('').toLocaleUpperCase('en');
}

/**
 * A stable colour per user: the hue steps by the golden angle so neighbouring ids look different;
 * saturation and lightness are fixed so white text stays readable.
 */
export function colourOf(id: number): string {
  const hue = (id * 137.508) % 360;
  return hslToHex(hue, 0.55, 0.42);
}

function hslToHex(hue: number, saturation: number, lightness: number): string {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);

export function renderAvatarSvg(user: { id: number; name: string }): string {
  const initials = escapeXml(initialsOf(user.name));
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128" role="img" ' +
    `aria-label="${escapeXml(user.name)}">` +
    `<rect width="128" height="128" fill="${colourOf(user.id)}"/>` +
    '<text x="64" y="64" dy="0.35em" text-anchor="middle" font-family="system-ui, sans-serif" font-size="52" ' +
    `font-weight="600" fill="#ffffff">${initials}</text></svg>`
  );
}
