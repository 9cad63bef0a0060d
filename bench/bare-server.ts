// The ceiling for GET /v1/events: a plain node:http server that answers every request with the
// service's own response body, JSON.stringify'd from the parsed object on each request (the work
// any JSON API must do at least), with the same Content-Type. Started by bench/run.ts over IPC:
// it receives {body, contentType}, and replies {port} once it listens on 127.0.0.1.
import { createServer } from 'node:http';

interface Start {
  body: string;
  contentType: string;
}

process.once('message', (message: Start) => {
  const payload: unknown = JSON.parse(message.body);
  const contentType = message.contentType;
  const server = createServer((_req, res) => {
    const text = JSON.stringify(payload);
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
});
