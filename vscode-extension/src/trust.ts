// Workspace trust: what waits until the user trusts the workspace. No `vscode` import.
//
// In an untrusted workspace the extension asks no interpreter of the workspace for
// anything and the server writes no files; once trust is granted, the work that was
// held back starts and the server restarts with the trusted options.

/** The part of `vscode.workspace` read here. */
export interface WorkspaceTrustLike {
  readonly isTrusted: boolean;
  onDidGrantWorkspaceTrust(listener: () => unknown): { dispose(): unknown };
}

/**
 * Runs `trusted` now in a trusted workspace; in an untrusted one, runs it when trust is
 * granted and then `restart` (a server started untrusted has the untrusted options).
 * The returned object stops the waiting.
 */
export function whenTrusted(
  workspace: WorkspaceTrustLike,
  trusted: () => void,
  restart: () => void,
): { dispose(): unknown } {
  if (workspace.isTrusted) {
    trusted();
    return { dispose: () => undefined };
  }
  let done = false;
  const subscription = workspace.onDidGrantWorkspaceTrust(() => {
    if (done) {
      return;
    }
    done = true;
    subscription.dispose();
    trusted();
    restart();
  });
  return subscription;
}
