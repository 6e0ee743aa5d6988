"""latency_proxy.py — a user-space stand-in for `tc qdisc … netem delay` on one TCP link: a proxy
on 127.0.0.x that forwards to a target (host, port) and holds every chunk it reads for a one-way
delay before writing it on, in order, in each direction; it can also black-hole the link or refuse
it. Standard library only; it runs its own asyncio loop in a background thread, so a test drives
it from ordinary blocking code.

    proxy = LatencyProxy(("127.0.0.1", 9211), host="127.0.0.1").start()
    proxy.http             # (host, port): connect here instead of the target (cluster.Grader
                           # takes the proxy where it takes a store Node: it reads only .http)
    proxy.set_delay(20)    # each chunk is held 20 ms before it is written, each direction
    proxy.stall()          # black hole: connections are accepted and read, nothing is forwarded
    proxy.refuse()         # nothing listens: connecting is refused, open connections are reset
    proxy.heal()           # forwarding again (delay 0 unless given)
    proxy.stop()           # everything closed, the thread joined, within a bound

The delay is netem's: a chunk read at t is written at t + delay (the delay in force when it was
read), after every chunk read before it; it is not added once per chunk queued ahead, and the
link's bandwidth is not limited. A connection end (EOF) is delayed like data.

Stalled: a connection open when the link stalls, and every connection accepted while it is
stalled, is black-holed for good: what it reads is discarded (chunks already held are dropped
when they fall due), nothing is written to either end, and an end's EOF is not passed on, as if
the packets were lost. When the link heals those connections are closed at both ends (their TCP
connections would have timed out), so a client that gave up on one never sees a late answer and
the target never sees a late request; new connections are forwarded.

Bounded: at most `max_connections` connections at once (more are reset at once), at most
`queue_chunks` chunks of at most `chunk_bytes` held per direction of a connection (the reader
waits when the writer is behind), connecting to the target at most `connect_timeout` seconds,
and stop() returns within `stop_timeout` seconds.
"""

import asyncio
import socket
import threading

__all__ = ["LatencyProxy"]


class _Link:
    """One proxied connection: the client's end, the target's end (None while connecting, or for a
    connection accepted while stalled), and whether it is black-holed."""

    def __init__(self, client_writer):
        self.client = client_writer
        self.upstream = None
        self.dead = False
        self.tasks = []

    def abort(self):
        for writer in (self.client, self.upstream):
            if writer is not None:
                writer.transport.abort()
        for task in self.tasks:
            task.cancel()


class LatencyProxy:
    def __init__(self, target, host="127.0.0.1", port=0, delay_ms=0, max_connections=512, chunk_bytes=65536,
                 queue_chunks=64, connect_timeout=5.0, stop_timeout=5.0):
        self.target = (target[0], int(target[1]))
        self.host = host
        self.port = port
        self.max_connections = max_connections
        self.chunk_bytes = chunk_bytes
        self.queue_chunks = queue_chunks
        self.connect_timeout = connect_timeout
        self.stop_timeout = stop_timeout
        self._delay = max(0.0, delay_ms / 1000.0)
        self._mode = "forward"  # "forward", "stall" or "refuse"; changed only on the loop's thread
        self._links = set()
        self._server = None
        self._loop = None
        self._thread = None
        # counters, for a test to check its traffic went through the proxy
        self.accepted = 0
        self.forwarded_bytes = 0
        self.discarded_bytes = 0

    # ------------------------------------------------------------------ control (any thread)

    @property
    def http(self):
        """(host, port) to connect to: what cluster.store_urls() reads of a store Node."""
        return (self.host, self.port)

    @property
    def mode(self):
        return self._mode

    @property
    def delay_ms(self):
        return self._delay * 1000.0

    def start(self):
        ready = threading.Event()
        failure = []

        def run():
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._listen())
            except BaseException as e:  # noqa: BLE001 - handed to the starting thread
                failure.append(e)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name=f"latency-proxy->{self.target[0]}:{self.target[1]}",
                                        daemon=True)
        self._thread.start()
        if not ready.wait(self.stop_timeout):
            raise RuntimeError("the latency proxy did not start")
        if failure:
            raise failure[0]
        return self

    def set_delay(self, delay_ms):
        """The one-way delay of every chunk read from now on (ms), each direction; forwarding."""
        self.heal(delay_ms)

    def heal(self, delay_ms=0):
        """Forwarding again with `delay_ms`: black-holed connections are closed, a refused link
        listens again on the same port."""
        self._call(self._heal(max(0.0, delay_ms / 1000.0)))

    def stall(self):
        """Black hole: accept and read, never forward (see the module's docstring)."""
        self._call(self._stall())

    def refuse(self):
        """Nothing listens on the port; open connections are reset."""
        self._call(self._refuse())

    def stop(self):
        """Closes the listener and every connection and ends the thread, within stop_timeout."""
        if self._loop is None or self._thread is None:
            return
        if self._loop.is_running():
            try:
                self._call(self._shutdown())
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(self.stop_timeout)
        if self._thread.is_alive():
            raise RuntimeError(f"the latency proxy to {self.target} did not stop within {self.stop_timeout} s")
        self._thread = None

    def _call(self, coroutine):
        if self._loop is None or not self._loop.is_running():
            coroutine.close()
            raise RuntimeError("the latency proxy is not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(self.stop_timeout)

    # ------------------------------------------------------------------ the loop's side

    async def _listen(self):
        self._server = await asyncio.start_server(self._accept, self.host, self.port, reuse_address=True,
                                                  limit=self.chunk_bytes)
        self.port = self._server.sockets[0].getsockname()[1]

    def _close_server(self):
        if self._server is not None:
            self._server.close()
            self._server = None

    async def _heal(self, delay):
        self._delay = delay
        self._mode = "forward"
        for link in [l for l in self._links if l.dead]:
            link.abort()
            self._links.discard(link)
        if self._server is None:
            await self._listen()

    async def _stall(self):
        self._mode = "stall"
        for link in self._links:
            link.dead = True

    async def _refuse(self):
        self._mode = "refuse"
        self._close_server()
        for link in list(self._links):
            link.abort()
        self._links.clear()

    async def _shutdown(self):
        await self._refuse()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=self.stop_timeout / 2)

    async def _accept(self, reader, writer):
        if self._mode == "refuse" or len(self._links) >= self.max_connections:
            writer.transport.abort()
            return
        self.accepted += 1
        link = _Link(writer)
        self._links.add(link)
        try:
            if self._mode == "stall":
                link.dead = True
                await self._discard(reader)
                return
            try:
                up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(*self.target,
                                                                                      limit=self.chunk_bytes),
                                                              self.connect_timeout)
            except (OSError, asyncio.TimeoutError):
                writer.transport.abort()  # the target refused: so does the link
                return
            link.upstream = up_writer
            if link.dead:  # stalled while connecting
                await self._discard(reader)
                return
            both = [asyncio.ensure_future(self._pump(reader, up_writer, link)),
                    asyncio.ensure_future(self._pump(up_reader, writer, link))]
            link.tasks = both
            await asyncio.gather(*both, return_exceptions=True)
            if link.dead:
                return  # closed when the link heals (or stops)
        except asyncio.CancelledError:
            pass  # stopping: asyncio's stream callback would report a cancelled handler as an error
        finally:
            if not link.dead or self._mode != "stall":
                link.abort()
                self._links.discard(link)

    async def _discard(self, reader):
        """Reads and drops what a black-holed connection's client sends, until its EOF."""
        try:
            while True:
                data = await reader.read(self.chunk_bytes)
                if not data:
                    return
                self.discarded_bytes += len(data)
        except (OSError, asyncio.IncompleteReadError):
            return

    async def _pump(self, reader, writer, link):
        """One direction: chunks read from `reader` are written to `writer`, each `delay` after it
        was read, in order; EOF is passed on (half-close) after the chunks before it."""
        loop = asyncio.get_running_loop()
        held = asyncio.Queue(self.queue_chunks)

        async def read():
            try:
                while True:
                    data = await reader.read(self.chunk_bytes)
                    if link.dead:
                        self.discarded_bytes += len(data)
                        if not data:
                            return  # a black hole passes no EOF on either
                        continue
                    await held.put((loop.time() + self._delay, data))
                    if not data:
                        return
            except (OSError, asyncio.IncompleteReadError):
                await held.put((loop.time() + self._delay, None))

        reading = asyncio.ensure_future(read())
        try:
            while True:
                due, data = await held.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if link.dead:
                    if data:
                        self.discarded_bytes += len(data)
                    if data is None or data == b"":
                        return
                    continue
                if data is None:  # the reading end failed (reset): so does this one
                    link.abort()
                    return
                if data == b"":
                    if writer.can_write_eof():
                        try:
                            writer.write_eof()
                        except OSError:
                            link.abort()
                    else:
                        writer.close()
                    return
                writer.write(data)
                self.forwarded_bytes += len(data)
                try:
                    await writer.drain()
                except OSError:
                    link.abort()
                    return
        finally:
            reading.cancel()


def _selftest():
    """python3 latency_proxy.py: a round trip through a 50 ms proxy to a local echo server."""
    import time
    listener = socket.create_server(("127.0.0.1", 0))

    def echo():
        conn, _ = listener.accept()
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    threading.Thread(target=echo, daemon=True).start()
    proxy = LatencyProxy(listener.getsockname(), delay_ms=50).start()
    with socket.create_connection(proxy.http, timeout=5) as s:
        t = time.monotonic()
        s.sendall(b"ping")
        print(s.recv(16), f"{(time.monotonic() - t) * 1000:.1f} ms round trip through 2 x 50 ms")
    proxy.stop()
    listener.close()


if __name__ == "__main__":
    _selftest()
