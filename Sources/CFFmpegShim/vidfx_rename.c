#define _GNU_SOURCE
#include "vidfx_rename.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int vfx_rename_noreplace(const char *from, const char *to) {
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    struct stat st;
    if (stat(from, &st) != 0) return -1;
    if (S_ISDIR(st.st_mode)) {
        // rename(2) replaces only an empty folder; say EEXIST for any folder already there.
        if (lstat(to, &st) == 0) { errno = EEXIST; return -1; }
        return rename(from, to);
    }
    if (link(from, to) != 0) return -1;
    unlink(from);
    return 0;
}
