#ifndef VIDFX_RENAME_H
#define VIDFX_RENAME_H

/// rename(2) that fails with EEXIST instead of replacing an existing `to`
/// (renameat2 with RENAME_NOREPLACE). Where the file system does not support it
/// (EINVAL), a regular file is published with link(2) + unlink(2), which also never
/// replaces; a folder with rmdir-safe rename(2), which refuses a non-empty target.
/// Returns 0 or -1 with errno set. Swift's Glibc does not import renameat2.
int vfx_rename_noreplace(const char *from, const char *to);

#endif
