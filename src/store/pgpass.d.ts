/** pgpass (a dependency of pg, which reads ~/.pgpass or $PGPASSFILE): the password for a connection, or undefined. */
declare module 'pgpass' {
  function pgpass(connection: { host?: string; port?: number; database?: string; user?: string }, done: (password: string | undefined) => void): void;
  export default pgpass;
}
