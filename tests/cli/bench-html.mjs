// `argus bench --html FILE` (issue 24 item 5) opened in headless Debian chromium
// (playwright-core from clients/vscode, as scripts/vscode-e2e.sh uses it): no console
// error, no request beyond the page itself (all assets inline), one table row per task,
// the `false` task's counterexample in its collapsible row, the filters hide rows, the
// quantile plot is inline SVG. Screenshot: BUILD/bench-html.png.
// usage: node tests/cli/bench-html.mjs ARGUS ROOT BUILD   (exit 77: playwright-core or chromium missing)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [ARGUS, ROOT, BUILD] = process.argv.slice(2);
const fail = (m) => { console.error(`FAIL: ${m}`); process.exit(1); };
let chromium;
try {
  ({ chromium } = createRequire(path.join(ROOT, 'clients/vscode/package.json'))('playwright-core'));
} catch (e) {
  console.error('bench-html: playwright-core is not installed (cd clients/vscode && npm ci); skipped');
  process.exit(77);
}
const CHROMIUM = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (!CHROMIUM) { console.error('bench-html: Debian chromium is missing; skipped'); process.exit(77); }

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-html-'));
try {
  fs.mkdirSync(path.join(dir, 'tasks'));
  const rows = [['ex/safe_sum', 'safe_sum.c', 'loops', 'true'], ['ex/buggy_abs', 'buggy_abs.c', 'arith', 'false'],
                ['ex/array_max', 'array_max.c', 'loops', 'true'], ['ex/pointer_swap', 'pointer_swap.c', 'pointers', 'false']];
  let manifest = 'task\tfile\tcategory\tsource\tproperty\texpected\tdata_model\tnotes\n';
  for (const [id, file, cat, exp] of rows) {
    fs.copyFileSync(path.join(ROOT, 'examples', file), path.join(dir, 'tasks', file));
    manifest += `${id}\ttasks/${file}\t${cat}\ttest\tunreach-call\t${exp}\tLP64\t\n`;
  }
  fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), manifest);
  const html = path.join(dir, 'report.html');
  const log = execFileSync(ARGUS, ['bench', path.join(dir, 'MANIFEST.tsv'), '--algorithm', 'bmc', '--timeout', '20',
    '--jobs', '2', '--out', path.join(dir, 'run.json'), '--html', html], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (!fs.existsSync(html)) fail(`no HTML report\n${log}`);
  if (fs.existsSync(html + '.data.json')) fail('the data file was left behind');
  const run = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
  const text = fs.readFileSync(html, 'utf8');
  if (/<(script|link|img)[^>]+(src|href)=/i.test(text)) fail('the page loads an external asset');

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    const requests = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(html).href;
    await page.goto(url);
    if (errors.length) fail(`console errors: ${errors.join('; ')}`);
    const other = requests.filter((u) => u !== url);
    if (other.length) fail(`requests beyond the page: ${other.join(', ')}`);
    const n = await page.locator('#tasks tbody tr').count();
    if (n !== run.tasks.length || n !== rows.length) fail(`${n} rows for ${run.tasks.length} tasks`);
    if ((await page.locator('#plot svg').count()) !== 1) fail('no inline SVG quantile plot');
    // each task of the run is a row with its verdict; a false task's row holds its counterexample
    for (const t of run.tasks) {
      const row = page.locator('#tasks tbody tr', { has: page.locator(`td:text-is("${t.task}")`) });
      if ((await row.count()) !== 1) fail(`no row for ${t.task}`);
      const cells = await row.locator('td').allTextContents();
      if (cells[2] !== t.verdict || cells[3] !== t.expected) fail(`${t.task}: row ${JSON.stringify(cells)}`);
      if (t.verdict === 'false') {
        const summary = await row.locator('details summary').textContent();
        if (summary !== 'counterexample') fail(`${t.task}: details "${summary}"`);
        await row.locator('details summary').click();
        const trace = await row.locator('details pre').textContent();
        if (!trace.includes(path.basename(t.file))) fail(`${t.task}: trace without its file: ${trace}`);
      }
    }
    // filters
    await page.selectOption('#f-category', 'loops');
    const loops = await page.locator('#tasks tbody tr:visible').count();
    if (loops !== 2) fail(`category filter: ${loops} rows visible, want 2`);
    await page.selectOption('#f-category', '');
    const wantFalse = run.tasks.filter((t) => t.result === 'correct_false').length;
    await page.selectOption('#f-result', 'correct_false');
    const falses = await page.locator('#tasks tbody tr:visible').count();
    if (falses !== wantFalse) fail(`result filter: ${falses} rows visible, want ${wantFalse}`);
    await page.selectOption('#f-result', '');
    if ((await page.locator('#tasks tbody tr:visible').count()) !== rows.length) fail('filters do not reset');
    if (errors.length) fail(`console errors: ${errors.join('; ')}`);
    await page.screenshot({ path: path.join(BUILD, 'bench-html.png'), fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(`bench-html: ok (${rows.length} rows, screenshot ${path.join(BUILD, 'bench-html.png')})`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
