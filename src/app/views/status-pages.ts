// The app's dead ends: an expired or foreign form (CSRF), a write the role may not do, a page
// that does not exist (or belongs to another organization: the same page), and other errors.
import { html } from '../../platform/index.ts';
import type { PageErrorKind } from '../app-access.ts';
import { page, type Viewer } from './layout.ts';

function homeLink(viewer: Viewer | null) {
  return viewer
    ? html`<p><a href="/">Back to the overview</a></p>`
    : html`<p><a href="/sign-in">Sign in</a></p>`;
}

export function renderPageError(kind: PageErrorKind, viewer: Viewer | null): string {
  switch (kind) {
    case 'csrf':
      return page({
        title: 'This form has expired',
        viewer,
        main: html`<h1>This form has expired or came from another site</h1>
          <p>Nothing was changed. Reload the page and try again.</p>
          ${homeLink(viewer)}`,
      });
    case 'forbidden':
      return page({
        title: 'Not allowed',
        viewer,
        main: html`<h1>Your role cannot do this</h1>
          <p>Nothing was changed. Ask an owner or an admin of the organization if you need this done.</p>
          ${homeLink(viewer)}`,
      });
    case 'gone':
    case 'not_found':
      return renderNotFound(viewer);
  }
}

export function renderNotFound(viewer: Viewer | null): string {
  return page({
    title: 'Page not found',
    viewer,
    main: html`<h1>Page not found</h1>
      <p>There is nothing here. Check the link, or go back and choose again.</p>
      ${homeLink(viewer)}`,
  });
}

export function renderErrorPage(options: {
  status: number;
  requestId: string;
  viewer: Viewer | null;
}): string {
  const { status } = options;
  const [heading, text] =
    status === 413
      ? ['The form was too large', 'Go back, shorten what you typed and try again. Nothing was changed.']
      : status === 415
        ? ['That request could not be read', 'Send the form from the page itself. Nothing was changed.']
        : status === 429
          ? ['Too many requests', 'Wait a minute and try again.']
          : status < 500
            ? ['That request could not be handled', 'Go back and try again. Nothing was changed.']
            : ['Something went wrong on our side', 'Please try again in a moment.'];
  return page({
    title: heading,
    viewer: options.viewer,
    main: html`<h1>${heading}</h1>
      <p>${text}</p>
      <p class="muted">Reference for support: ${options.requestId}</p>`,
  });
}
