#ifndef EMRTDKIT_COPENJPEG_SHIM_H
#define EMRTDKIT_COPENJPEG_SHIM_H
#include <openjpeg.h>
#endif
