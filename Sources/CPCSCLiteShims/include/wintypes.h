/* See pcsclite.h beside this file: resolves pcsc-lite's own <wintypes.h> include. */
#include <PCSC/wintypes.h>
