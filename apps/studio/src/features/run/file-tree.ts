// Workspace paths → a folder tree for the files panel. Pure.
export interface FileLeaf<F> {
  kind: 'file';
  name: string;
  path: string;
  file: F;
}

export interface FolderNode<F> {
  kind: 'folder';
  name: string;
  path: string;
  children: (FolderNode<F> | FileLeaf<F>)[];
}

export function buildFileTree<F extends { path: string }>(files: readonly F[]): FolderNode<F> {
  const root: FolderNode<F> = { kind: 'folder', name: '', path: '', children: [] };
  const folders = new Map<string, FolderNode<F>>([['', root]]);
  const folderFor = (path: string): FolderNode<F> => {
    const existing = folders.get(path);
    if (existing) return existing;
    const cut = path.lastIndexOf('/');
    const parent = folderFor(cut < 0 ? '' : path.slice(0, cut));
    const node: FolderNode<F> = { kind: 'folder', name: cut < 0 ? path : path.slice(cut + 1), path, children: [] };
    parent.children.push(node);
    folders.set(path, node);
    return node;
  };
  for (const f of files) {
    const clean = f.path.replace(/^\/+/, '');
    const cut = clean.lastIndexOf('/');
    const parent = folderFor(cut < 0 ? '' : clean.slice(0, cut));
    parent.children.push({ kind: 'file', name: cut < 0 ? clean : clean.slice(cut + 1), path: f.path, file: f });
  }
  const sort = (n: FolderNode<F>) => {
    n.children.sort((a, b) => (a.kind !== b.kind ? (a.kind === 'folder' ? -1 : 1) : a.name.localeCompare(b.name)));
    for (const c of n.children) if (c.kind === 'folder') sort(c);
  };
  sort(root);
  return root;
}
