// Which process listens on a local TCP port (Linux /proc), so that the CLI
// hands the database's token only to the service that recorded it.
#ifndef TUNER_TUNER_SERVER_LISTENING_SOCKET_H_
#define TUNER_TUNER_SERVER_LISTENING_SOCKET_H_

#include <cstdint>

namespace tuner::server {

// Whether process `pid` holds a socket listening on TCP `port` (IPv4 or
// IPv6, any local address): the inodes of the listening sockets in
// /proc/net/tcp and /proc/net/tcp6 against the `socket:[INODE]` links in
// /proc/PID/fd. False when any of them cannot be read (another user's
// process, no /proc), so that the answer errs toward no.
bool ProcessListensOn(int pid, uint16_t port);

}  // namespace tuner::server

#endif  // TUNER_TUNER_SERVER_LISTENING_SOCKET_H_
