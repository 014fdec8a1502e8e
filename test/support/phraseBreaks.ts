// The site's Japanese carries a zero-width space at each phrase boundary (messages/vite-plugin.ts), drawn as nothing:
// a test compares the text as it reads. Every layer imports this file (Node, workerd, the browsers' scripts), so it
// imports nothing, of the build (BudouX, Vite) least of all.

/** The phrase-boundary marker the build writes (messages/vite-plugin.ts `PHRASE_BREAK`). */
export const PHRASE_BREAK = "\u200b";

/** The text as it reads: without the phrase-boundary markers. */
export function withoutPhraseBreaks(text: string): string {
  return text.split(PHRASE_BREAK).join("");
}

/** A pattern of the text as it reads, whatever markers the page has in it: for a role's accessible name. */
export function asItReads(text: string): RegExp {
  const characters = [...text].map((character) => character.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^\\s*${characters.join(`${PHRASE_BREAK}?`)}\\s*$`);
}
