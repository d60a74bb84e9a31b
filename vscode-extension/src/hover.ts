// Hover markdown from the server: pure logic, no `vscode` import.
//
// The server's hovers are Markdown with PNG `data:` images (sized with
// `|width=`), HTML in places, and command links (Open architecture, …).
// VS Code renders HTML only with `supportHtml`, and runs command links only
// with `isTrusted`.

/** The part of `vscode.MarkdownString` touched here. */
export interface MarkdownLike {
  isTrusted?: boolean | { readonly enabledCommands: readonly string[] };
  supportHtml?: boolean;
  appendMarkdown(value: string): unknown;
}

export interface HoverLike {
  contents: unknown[];
}

function isMarkdownString(value: unknown): value is MarkdownLike {
  return typeof value === 'object' && value !== null && typeof (value as MarkdownLike).appendMarkdown === 'function';
}

/**
 * Marks every MarkdownString of a hover as rendering HTML and as trusted.
 * `trust` is `true` in a trusted workspace; in an untrusted one, pass
 * `{ enabledCommands: [...] }` so that only this extension's own commands can
 * run from a link (a doc comment in someone else's repository could hold one).
 */
export function trustHover<H extends HoverLike>(
  hover: H | null | undefined,
  trust: MarkdownLike['isTrusted'] = true,
): H | null | undefined {
  if (!hover || !Array.isArray(hover.contents)) {
    return hover;
  }
  for (const item of hover.contents) {
    if (isMarkdownString(item)) {
      item.isTrusted = trust;
      item.supportHtml = true;
    }
  }
  return hover;
}
