// Names a watched folder must never upload: files still being written under a temporary name.
// Browsers, download tools, sync clients and editors write to such a name and rename the file
// when it is complete (Dropbox and Syncthing ignore the same names); the finished file then
// appears under its real name and is uploaded once. Pure: a name in, a verdict out.

/** Extensions of partial downloads and copies in progress (compared in lower case). */
const PARTIAL_EXTENSIONS = [
  '.part', // Firefox, curl -o with rename, many copy tools
  '.partial', // Internet Explorer, some sync tools
  '.crdownload', // Chrome, Edge
  '.download', // Safari (a folder, but some tools write a file)
  '.opdownload', // Opera
  '.filepart', // WinSCP
  '.tmp',
  '.temp',
  '.swp', // vim
  '.swx',
  '.!qb', // qBittorrent
  '.!ut', // µTorrent
];

/**
 * A name of a file being written that will be renamed when complete, or an editor's lock or
 * backup file: `clip.mp4.part`, `photo.jpg.crdownload`, `~$notes.docx`, `.~lock.a.odt#`,
 * `~syncthing~clip.mp4.tmp`, `.syncthing.clip.mp4.tmp`, `#clip#`, `clip.mp4~`, `.#clip`.
 */
export function isPartialName(name: string): boolean {
  const lower = name.toLowerCase();
  if (PARTIAL_EXTENSIONS.some((ext) => lower.endsWith(ext))) return true;
  // Office's owner files, LibreOffice's locks, Syncthing's and Emacs' temporary names.
  if (lower.startsWith('~$') || lower.startsWith('.~lock.') || lower.startsWith('~syncthing~')) return true;
  if (lower.startsWith('.syncthing.') || lower.startsWith('.#')) return true;
  if (lower.endsWith('~') || (lower.startsWith('#') && lower.endsWith('#'))) return true;
  return false;
}
