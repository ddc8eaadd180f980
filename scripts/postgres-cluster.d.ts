/** Types of scripts/postgres-cluster.js (plain JS, shared by the tests and the bench). */
export function postgresBin(): string | undefined;
export function startCluster(dir: string, options: { user: string; password: string; settings?: Record<string, string | number> }): Promise<number>;
export function stopCluster(dir: string): void;
