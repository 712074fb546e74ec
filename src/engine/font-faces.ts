/**
 * A document's `@font-face` rule as the page reads it (pages/page-fonts.ts) and the templates are
 * given it (templates/body-faces.ts): shared by the two rooms, which import neither the other.
 */

/** One `@font-face` rule of a document, its values as Chromium serialises them. */
export interface FontFaceRule {
  /** The family as written in the rule (a CSS string or identifier). */
  family: string;
  /** The `src` descriptor; empty when it was too long to read. */
  src: string;
  /** The URL its relative URLs resolve against: its style sheet's, or the document's. */
  base: string;
  /** Its other descriptors (font-style, font-weight, unicode-range, ...), those it sets. */
  descriptors: Record<string, string>;
}

/** The rules of the families asked for, and the style sheets whose rules the page may not read (another origin's). */
export interface DocumentFaces {
  faces: FontFaceRule[];
  opaque: string[];
}
