/**
 * A test server for the bench's clients: it answers the first request of each connection and
 * drops the connection without an answer when a second one comes on it — a keep-alive timeout
 * ending as a request arrives. `connections` says, per request, whether it was served or dropped.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DroppingServer {
  /** The server's base address (`http://127.0.0.1:PORT`). */
  readonly base: string;
  readonly connections: ('serve' | 'drop')[];
  close(): Promise<void>;
}

/** Starts a {@link DroppingServer} whose served requests get `answer(request, response)`. */
export async function startDroppingServer(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<DroppingServer> {
  const connections: ('serve' | 'drop')[] = [];
  const server = http.createServer((request, response) => {
    const socket = request.socket as typeof request.socket & { served?: boolean };
    connections.push(socket.served === true ? 'drop' : 'serve');
    if (socket.served === true) {
      socket.destroy();
      return;
    }
    socket.served = true;
    answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
