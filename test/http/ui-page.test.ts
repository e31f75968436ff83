/**
 * The status page itself through the whole app: the page, its script and style at /ui (and at / for
 * browsers), who must sign in, and the headers its error answers carry.
 */
import { describe, expect, it } from 'vitest';
import { expectW3cError } from '../support/fake-grid';
import { ALICE, BOB, WRONG_PASSWORD } from '../support/page-users';
import { expectPageError, sessionApi, statusPageGrids } from '../support/status-page-grid';

const startGrid = statusPageGrids();

describe('the status page itself', () => {
  it('locks down its error answers as it does the page: 401, 404 and 405 under / and /ui', async () => {
    const grid = startGrid({ guest: null });
    const page = await grid.app.request('/ui', { headers: ALICE });
    const errors = [
      await grid.app.request('/ui', { headers: WRONG_PASSWORD }),
      await grid.app.request('/ui/api/overview'),
      await grid.app.request(sessionApi('0123456789abcdef'), { headers: ALICE }),
      await grid.app.request('/ui/api/nothing-here', { headers: ALICE }),
      await grid.app.request('/ui/api/overview', { method: 'PUT', headers: ALICE }),
      await grid.app.request('/', { headers: { ...WRONG_PASSWORD, accept: 'text/html' } }),
    ];
    expect(errors.map((response) => response.status)).toEqual([401, 401, 404, 404, 405, 401]);
    for (const response of errors) {
      for (const header of [
        'content-security-policy',
        'x-content-type-options',
        'referrer-policy',
        'cache-control',
      ]) {
        expect(response.headers.get(header), `${response.status} ${header}`).toBe(page.headers.get(header));
      }
    }
    expect(page.headers.get('cache-control')).toBe('no-store');
    // WebDriver's own errors keep W3C's no-cache, with the same protection against sniffing.
    const webdriver = await grid.app.request('/session/forged/url', { headers: ALICE });
    expect(webdriver.status).toBe(404);
    expect(webdriver.headers.get('cache-control')).toBe('no-cache');
    expect(webdriver.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the page at /ui and at / to browsers, and stays a WebDriver 404 at / for clients', async () => {
    const grid = startGrid();
    const page = await grid.app.request('/ui', { headers: ALICE });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="ui/app.js" defer></script>');
    expect(html).toContain('id="sessions"');

    const root = await grid.app.request('/', {
      headers: { ...ALICE, accept: 'text/html,application/xhtml+xml' },
    });
    expect(await root.text()).toBe(html);
    await expectW3cError(await grid.app.request('/', { headers: ALICE }), 404, 'unknown command');
    await expectW3cError(
      await grid.app.request('/', { headers: { ...ALICE, accept: 'application/json' } }),
      404,
      'unknown command',
    );
  });

  it('serves the session page shell, its script and its style', async () => {
    const grid = startGrid();
    expect(await (await grid.app.request('/ui?session=abc', { headers: ALICE })).text()).toContain(
      'id="screen"',
    );
    const script = await grid.app.request('/ui/app.js', { headers: ALICE });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('"ui/api/overview"');
    const style = await grid.app.request('/ui/style.css', { headers: ALICE });
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('asks for credentials when guests are off, and on "sign in" when the caller is the guest', async () => {
    const guestsOff = startGrid({ guest: null });
    const anonymous = await guestsOff.app.request('/ui');
    await expectPageError(anonymous, 401, 'invalid argument', 'authentication required');
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="gridgate"');
    await expectPageError(await guestsOff.app.request('/ui/api/overview'), 401, 'invalid argument');

    const guestsOn = startGrid();
    expect((await guestsOn.app.request('/ui')).status).toBe(200);
    const signIn = await guestsOn.app.request('/ui?signin');
    await expectPageError(signIn, 401, 'invalid argument', 'sign in');
    expect(signIn.headers.get('www-authenticate')).toBe('Basic realm="gridgate"');
    expect((await guestsOn.app.request('/ui?signin', { headers: BOB })).status).toBe(200);
  });

  it('refuses other methods with unknown method', async () => {
    const grid = startGrid();
    await expectPageError(
      await grid.app.request('/ui/api/overview', { method: 'POST', headers: ALICE }),
      405,
      'unknown method',
    );
    await expectPageError(
      await grid.app.request(sessionApi('abc'), { method: 'PATCH', headers: ALICE }),
      405,
      'unknown method',
    );
  });
});
