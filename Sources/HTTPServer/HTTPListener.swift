import Glibc

/// A bound, listening socket handed to libmicrohttpd (so the service knows the port it got, and can
/// listen on a Unix-domain socket with the permissions it chose).
struct HTTPListener {
    let fd: Int32
    /// The address actually bound (the port the kernel picked for port 0).
    let bound: HTTPListenAddress

    static func open(_ address: HTTPListenAddress, backlog: Int32 = 64) throws(HTTPServerError) -> HTTPListener {
        switch address {
        case .tcp(let host, let port): return try openTCP(host: host, port: port, backlog: backlog)
        case .unix(let path): return try openUnix(path: path, backlog: backlog)
        }
    }

    private static func fail(_ what: String, _ fd: Int32) -> HTTPServerError {
        let e = errno
        if fd >= 0 { Glibc.close(fd) }
        return HTTPServerError("\(what): \(String(cString: strerror(e)))")
    }

    private static func openTCP(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> HTTPListener {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6: Bool
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            isV6 = false
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
        } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
            isV6 = true
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
        } else {
            throw HTTPServerError("\(host) is not an IPv4 or IPv6 address")
        }
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail("socket", -1) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if isV6 { _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let rc: Int32 =
            isV6
            ? withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
            : withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        guard rc == 0 else { throw fail("bind \(HTTPListenAddress.tcp(host: host, port: port))", fd) }
        guard listen(fd, backlog) == 0 else { throw fail("listen", fd) }
        // the port the kernel gave
        var boundPort = port
        if isV6 {
            var a = sockaddr_in6()
            var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
            if withUnsafeMutablePointer(
                to: &a, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }) == 0
            {
                boundPort = UInt16(bigEndian: a.sin6_port)
            }
        } else {
            var a = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            if withUnsafeMutablePointer(
                to: &a, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }) == 0
            {
                boundPort = UInt16(bigEndian: a.sin_port)
            }
        }
        return HTTPListener(fd: fd, bound: .tcp(host: name, port: boundPort))
    }

    private static func openUnix(path: String, backlog: Int32) throws(HTTPServerError) -> HTTPListener {
        var addr = sockaddr_un()
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw HTTPServerError("--socket: the path is empty or longer than \(capacity - 1) bytes")
        }
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, b) in bytes.enumerated() { dst[i] = b }
        }
        // replace a stale socket file, never anything else
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else { throw HTTPServerError("\(path) exists and is not a socket") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail("socket", -1) }
        // created 0660 (group: the kiosk UI's user), never briefly wider
        let old = umask(0o117)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(old)
        guard rc == 0 else { throw fail("bind \(path)", fd) }
        guard chmod(path, 0o660) == 0 else { throw fail("chmod \(path)", fd) }
        guard listen(fd, backlog) == 0 else { throw fail("listen", fd) }
        return HTTPListener(fd: fd, bound: .unix(path: path))
    }
}
