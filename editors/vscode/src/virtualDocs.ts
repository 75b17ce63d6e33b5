// Read-only documents whose text comes from the language server (AIR, syntax trees).

import * as vscode from 'vscode';

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly subscriptions: vscode.Disposable[] = [];

  readonly onDidChange = this.changed.event;

  /**
   * @param scheme  the URI scheme of the documents, e.g. `msl-air`
   * @param suffix  added to the source's file name, e.g. `.ll`; the tab shows the result
   */
  constructor(
    readonly scheme: string,
    private readonly suffix: string,
  ) {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(scheme, this),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === this.scheme) {
          this.contents.delete(doc.uri.toString());
        }
      }),
    );
  }

  /** The virtual document shown for a source document. */
  uriFor(source: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({
      scheme: this.scheme,
      path: source.path + this.suffix,
      // the full source URI keeps documents of different schemes or folders apart
      query: source.toString(),
    });
  }

  /** Stores new text for the view of `source` and tells open editors about it. */
  update(source: vscode.Uri, text: string): vscode.Uri {
    const uri = this.uriFor(source);
    const key = uri.toString();
    const previous = this.contents.get(key);
    this.contents.set(key, text);
    if (previous !== undefined && previous !== text) {
      this.changed.fire(uri);
    }
    return uri;
  }

  /** Whether a view of `source` is still open. */
  isOpen(source: vscode.Uri): boolean {
    return this.contents.has(this.uriFor(source).toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  dispose(): void {
    for (const d of this.subscriptions) {
      d.dispose();
    }
    this.changed.dispose();
    this.contents.clear();
  }
}
