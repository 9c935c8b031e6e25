// The whole-file check of Grove's database (`PRAGMA quick_check`), off the
// event loop. quick_check reads every page, so it costs time in proportion
// to the stored history (about 5 ms per MB); opening the database reads
// only the schema and each table's first page (database.ts). The TUI runs
// this in a worker thread after its first frame, on a read-only
// connection of the worker's own, so neither a key nor a frame waits on it.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { DatabaseError } from './errors.js';

/** Runs in the worker (CommonJS, evaluated): opens the file read-only and posts quick_check's verdict. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
try {
  const Database = require(workerData.module);
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const rows = db.pragma('quick_check');
  parentPort.postMessage({ verdict: rows.map((row) => row.quick_check).join('; ') });
} catch (error) {
  parentPort.postMessage({ failure: String((error && error.message) || error), code: (error && error.code) || '' });
} finally {
  if (db) db.close();
}
`;

interface WorkerAnswer {
  readonly verdict?: string;
  readonly failure?: string;
  readonly code?: string;
}

/**
 * The database's damage in words (DatabaseError.corrupt's message), or
 * null when quick_check finds none. A check that cannot run at all (the
 * file gone, the worker failing) rejects: it says nothing about damage.
 */
export function checkIntegrity(file: string): Promise<string | null> {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, file } });
    let answered = false;
    worker.once('message', (answer: WorkerAnswer) => {
      answered = true;
      if (answer.verdict === 'ok') resolve(null);
      else if (answer.verdict !== undefined)
        resolve(DatabaseError.corrupt(file, firstLine(answer.verdict)).message);
      else if ((answer.code ?? '').startsWith('SQLITE_CORRUPT') || answer.code === 'SQLITE_NOTADB')
        resolve(DatabaseError.corrupt(file, firstLine(answer.failure ?? '')).message);
      else reject(new Error(`the database check could not run: ${answer.failure ?? ''}`));
    });
    worker.once('error', (error) => {
      if (!answered) reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the database check ended with code ${code}`));
    });
    // A check still reading when Grove quits does not hold the process open.
    worker.unref();
  });
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
