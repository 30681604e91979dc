#include "CMicroHTTPDShims.h"

struct MHD_Daemon *emrtd_mhd_start(const struct emrtd_mhd_settings *s,
                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                   MHD_RequestCompletedCallback completed, void *completed_cls) {
    /* One thread per connection: a Server-Sent Events stream blocks in its content reader until there is
       something to send (or the keep-alive interval passes), without holding up other connections. The
       port argument is ignored: the listening socket is handed over. */
    const unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
                               MHD_USE_ITC;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket) s->listen_fd,
                            MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->memory_limit,
                            MHD_OPTION_THREAD_STACK_SIZE, s->thread_stack_size,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_END);
}

uint64_t emrtd_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
ssize_t emrtd_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
ssize_t emrtd_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
enum MHD_Result emrtd_mhd_yes(void) { return MHD_YES; }
enum MHD_Result emrtd_mhd_no(void) { return MHD_NO; }
enum MHD_ValueKind emrtd_mhd_header_kind(void) { return MHD_HEADER_KIND; }
enum MHD_ValueKind emrtd_mhd_get_argument_kind(void) { return MHD_GET_ARGUMENT_KIND; }
enum MHD_ResponseMemoryMode emrtd_mhd_respmem_must_copy(void) { return MHD_RESPMEM_MUST_COPY; }
