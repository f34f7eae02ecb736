// Memory of a process tree from /proc (the daemon and its worker processes), for the
// benchmark scripts: RSS counts shared pages (the Clang/LLVM/Z3/cvc5 code every process
// maps) once per process; PSS divides them among the processes that share them.
import fs from 'node:fs';

export function childrenOf(pid) {
  const out = [];
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      const c = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (c) out.push(...c.split(/\s+/).map(Number));
    }
  } catch {}
  return out;
}

function field(file, re) {
  try {
    return Number(re.exec(fs.readFileSync(file, 'utf8'))[1]);
  } catch {
    return 0;
  }
}

export const rssKb = (pid) => field(`/proc/${pid}/status`, /VmRSS:\s+(\d+)/);
export const pssKb = (pid) => field(`/proc/${pid}/smaps_rollup`, /Pss:\s+(\d+)/);
// pid and every process below it: the daemon, its workers, and the processes a worker
// forks (the stages of a chain, the members of a parallel stage `kind|pred`)
export function descendantsOf(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; ++i) out.push(...childrenOf(out[i]));
  return out;
}
export const treeRssKb = (pid) => descendantsOf(pid).reduce((a, p) => a + rssKb(p), 0);
export const treePssKb = (pid) => descendantsOf(pid).reduce((a, p) => a + pssKb(p), 0);
