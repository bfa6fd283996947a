// Real Chromium for the browser tests: Debian's `chromium` package (installed by .ci/run),
// driven by playwright-core. No browser is ever downloaded.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Browser, type Page, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CONTENTLIB_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's chromium package (.ci/run does), or set CONTENTLIB_CHROMIUM`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    // Root (CI containers) cannot use Chromium's sandbox. Autoplay: the tests call play() without a click.
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--autoplay-policy=no-user-gesture-required'],
  });
}

/**
 * Reports what must not happen on a page to `problem`: errors in its console (a CSP violation
 * among them, where the test's script logs those), uncaught errors, and dialogs (dismissed, so
 * the page does not hang on one).
 */
export function watchForProblems(page: Page, problem: (what: string) => void): void {
  page.on('console', (m) => {
    if (m.type() === 'error') problem(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problem(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problem(`dialog: ${d.message()}`);
    void d.dismiss();
  });
}

let axeSource: string | undefined;

/** axe-core's serious and critical violations on the page as it is now (rule id and where). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // Run through the DevTools protocol, as the test's own code: the page's CSP (rightly) allows no
  // script but its own, and this is not the page's script.
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (o: unknown) => Promise<{
            violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
          }>;
        };
      }
    ).axe;
    const r = await axe.run({ resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      where: v.nodes.map((n) => String(n.target[0])).slice(0, 3),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} at ${v.where.join(', ')}`);
}
