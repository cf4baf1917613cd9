/*
 * datadir.c - the bundled data's directory (datadir.h).
 */
#include "datadir.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* PREFIX/share/plumb of the running binary PREFIX/bin/plumb, or "". */
static void installed_dir(char *buf, size_t n)
{
	char exe[4000];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	buf[0] = '\0';
	if (len <= 0)
		return;
	exe[len] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return;
	*slash = '\0';                  /* PREFIX/bin */
	if (!(slash = strrchr(exe, '/')))
		return;
	*slash = '\0';                  /* PREFIX */
	snprintf(buf, n, "%s/share/plumb", exe);
}

const char *plumb_data_path(const char *rel, char *buf, size_t n)
{
	char dir[4096];
	snprintf(buf, n, "%s", rel);
	if (rel[0] == '/' || access(rel, F_OK) == 0)
		return buf;
	installed_dir(dir, sizeof(dir));
	if (dir[0]) {
		char alt[8192];
		snprintf(alt, sizeof(alt), "%s/%s", dir, rel);
		if (access(alt, F_OK) == 0)
			snprintf(buf, n, "%s", alt);
	}
	return buf;
}
