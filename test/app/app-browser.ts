// What the organizer app's browser tests check on each page: axe-core with no violation at all
// (run through the DevTools protocol, as the page's CSP refuses added scripts), nothing scrolling
// sideways, and a screenshot, at a phone's width and a desktop's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { screenshot } from '../e2e/browser-helpers.ts';

const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
export const WIDTHS = [360, 1280];

export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const found = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  })) as { id: string; help: string; nodes: { target: string[] }[] }[];
  return found.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The checks at each width; the screenshots are `<name>-<width>.png`. */
export async function checkPage(page: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    assert.deepEqual(await axeViolations(page), [], `axe on ${name} at ${width} px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} fits ${width} px (overflow ${overflow})`);
    await screenshot(page, `${name}-${width}`);
  }
}

/** Signs `member` in through the app's sign-in form, landing on the overview. */
export async function signInPage(page: Page, app: string, member: { email: string; password: string }) {
  await page.goto(`${app}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(member.email);
  await page.getByLabel('Password', { exact: true }).fill(member.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app}/`);
}
