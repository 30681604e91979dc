#ifndef EMRTD_CPROCESSSHIMS_H
#define EMRTD_CPROCESSSHIMS_H

/* prctl(2) is variadic, which Swift does not import: these two fixed-argument wrappers are all the
 * executable needs (docs/reliability.md, "Core dumps"). */

/* prctl(PR_SET_DUMPABLE, dumpable): 0 or -1 with errno. */
int emrtd_set_dumpable(int dumpable);

/* prctl(PR_GET_DUMPABLE): 0 (not dumpable), 1 or 2, or -1 with errno. */
int emrtd_get_dumpable(void);

#endif
