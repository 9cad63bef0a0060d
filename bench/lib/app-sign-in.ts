// Signing in to the organizer app as a browser does, for the scenarios that drive its pages.

/** Signs in through the app's form like a browser: the CSRF cookie and field, then the session cookie. */
export async function signInToApp(appUrl: string, email: string, password: string): Promise<string> {
  const form = await fetch(`${appUrl}/sign-in`);
  const cookies = form.headers.getSetCookie().map((c) => c.split(';')[0]!);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${appUrl}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookies.join('; '),
      origin: appUrl,
    },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const session = res.headers.getSetCookie().map((c) => c.split(';')[0]!);
  return [...cookies, ...session].join('; ');
}
