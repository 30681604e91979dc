/* pcsc-lite installs its headers in /usr/include/PCSC and they include each other as <pcsclite.h> and
 * <wintypes.h>. These two forwarding headers (on the include path of every module that depends on
 * CPCSCLiteShims, and not part of its module) resolve those includes, so no target needs an
 * -I/usr/include/PCSC build flag (SwiftPM refuses unsafeFlags in a package used by version). */
#include <PCSC/pcsclite.h>
