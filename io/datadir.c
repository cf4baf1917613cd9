/*
 * datadir.c - the bundled data's directory (datadir.h).
 */
#include "datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The directories that may hold plumb's data, from the running binary's
 * path: the binary's own directory (./plumb in the source tree) and
 * PREFIX/share/plumb (PREFIX/bin/plumb installed). "" where unknown.
 */
static void data_dirs(char *src, char *inst, size_t n)
{
	char exe[4000];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	src[0] = inst[0] = '\0';
	if (len <= 0)
		return;
	exe[len] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return;
	*slash = '\0';                  /* the binary's directory, PREFIX/bin */
	snprintf(src, n, "%s", exe);
	if (!(slash = strrchr(exe, '/')))
		return;
	*slash = '\0';                  /* PREFIX */
	snprintf(inst, n, "%s/share/plumb", exe);
}

const char *plumb_data_path(const char *rel, char *buf, size_t n)
{
	char dir[2][4096], *alt;
	size_t len;
	int i;

	/* rel itself is returned, whole at any length (buf holds a copy when
	 * it fits); another file is returned only when its name fits buf */
	snprintf(buf, n, "%s", rel);
	if (!rel[0] || rel[0] == '/' || !strcmp(rel, "-") || access(rel, F_OK) == 0)
		return rel;
	data_dirs(dir[0], dir[1], sizeof(dir[0]));
	for (i = 0; i < 2; i++) {
		if (!dir[i][0])
			continue;
		len = strlen(dir[i]) + strlen(rel) + 2;
		if (len > n || !(alt = malloc(len)))
			continue;
		snprintf(alt, len, "%s/%s", dir[i], rel);
		if (access(alt, F_OK) == 0) {
			memcpy(buf, alt, len);
			free(alt);
			return buf;
		}
		free(alt);
	}
	return rel;
}
