#ifndef EMRTDKIT_CMICROHTTPD_SHIMS_H
#define EMRTDKIT_CMICROHTTPD_SHIMS_H
#include <stddef.h>
#include <sys/types.h>
#include <microhttpd.h>
/* libmicrohttpd entry points and macros that do not import into Swift. */

/* The daemon's settings (MHD_start_daemon is variadic: Swift cannot call it). */
struct emrtd_mhd_settings {
    int listen_fd;                  /* an already bound and listening socket (TCP or Unix) */
    unsigned int connection_limit;  /* MHD_OPTION_CONNECTION_LIMIT */
    unsigned int connection_timeout;/* MHD_OPTION_CONNECTION_TIMEOUT, seconds of inactivity */
    size_t memory_limit;            /* MHD_OPTION_CONNECTION_MEMORY_LIMIT: bounds the request line and headers */
    size_t thread_stack_size;       /* MHD_OPTION_THREAD_STACK_SIZE */
};

/* Starts a daemon with one thread per connection on settings->listen_fd; NULL on failure. */
struct MHD_Daemon *emrtd_mhd_start(const struct emrtd_mhd_settings *settings,
                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                   MHD_RequestCompletedCallback completed, void *completed_cls);

/* MHD_SIZE_UNKNOWN, MHD_CONTENT_READER_END_OF_STREAM, MHD_CONTENT_READER_END_WITH_ERROR. */
uint64_t emrtd_mhd_size_unknown(void);
ssize_t emrtd_mhd_end_of_stream(void);
ssize_t emrtd_mhd_end_with_error(void);
/* Enum values (libmicrohttpd declares its enums with attributes that change how Swift names them). */
enum MHD_Result emrtd_mhd_yes(void);
enum MHD_Result emrtd_mhd_no(void);
enum MHD_ValueKind emrtd_mhd_header_kind(void);
enum MHD_ValueKind emrtd_mhd_get_argument_kind(void);
enum MHD_ResponseMemoryMode emrtd_mhd_respmem_must_copy(void);
#endif
