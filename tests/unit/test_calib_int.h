/*
 * test_calib_int.h - what test_calib.c and test_calib_file.c share: the
 * data set generated at known constants and its fit (defined in
 * test_calib.c).
 */
#ifndef PLUMB_TEST_CALIB_INT_H
#define PLUMB_TEST_CALIB_INT_H

#include "calib.h"
#include "valid.h"

#define SCENARIO "scenarios/baremetal-8x-rtxpro6000.yaml"
#define MODEL "mixtral-8x7b"        /* fits one 96 GB GPU in NVFP4 */
#define VM_SCENARIO "scenarios/proxmox-vm-8x-rtxpro6000.yaml"

struct calib_fix {
	int tried, ok;
	char dir[64];
	char decode[128], coll[128], tiny[128], calfile[128];
	double start[4], truth[4];
	struct val_set *v;          /* the measured set, fitted */
	struct calib_result r;
	int rc;
	struct plumb_err err;
};
extern struct calib_fix F;

/* Make the data in a new temporary directory F.dir and fit it, once:
 * 0 when F holds the fit, -1 (with a message) when it could not be made. */
int fitted(void);
/* Suite cleanup of the last suite that uses the fit (calib_file; the fit
 * takes seconds, so calib leaves it to that suite): free the fit, remove
 * its files and directory; a later fitted() makes them again. Returns 0. */
int cleanup(void);
/* The collectives file at path: every row with the time us[k] (1.0 when us
 * is NULL). 0 or -1. */
int write_coll(const char *path, const double *us);
/* x as the file writes it ("%.9g") and reads it back. */
double as_written(double x);

#endif
