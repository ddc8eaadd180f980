import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ForwardProxy {
  url: string;
  /** host:port of every CONNECT tunnel opened through the proxy. */
  tunnels: string[];
  close(): Promise<void>;
}

/** A minimal HTTP forward proxy on loopback that tunnels CONNECT, as corporate proxies do. */
export async function startProxy(): Promise<ForwardProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(405).end('this proxy only tunnels (CONNECT)');
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const [host, port] = target.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
