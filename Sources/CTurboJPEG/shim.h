#ifndef EMRTDKIT_CTURBOJPEG_SHIM_H
#define EMRTDKIT_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
