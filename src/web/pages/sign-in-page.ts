import { html, type Html } from '../html.js';
import { layout } from '../layout.js';

/** Where the sign-in form posts: the server that holds the token answers it (docs/web.md, "Signing in"). */
export const SIGN_IN_PATH = '/sign-in';

/**
 * The page a browser gets instead of a page when a token protects the server
 * and it has not signed in: the token typed once (a password field, so a
 * password manager may keep it), then the page it asked for (`next`).
 */
export function signInPage(next: string, refused: boolean): Html {
  const main = html`<h1>Sign in</h1>
<p>This copy is protected by a token. Type it once: the browser keeps a sign-in cookie for 30 days, or until the token changes.</p>
${refused ? html`<p class="error" role="alert"><strong>Not signed in:</strong> that is not the server's token.</p>` : false}
<form method="post" action="${SIGN_IN_PATH}" class="sign-in" aria-label="Sign in">
<input type="hidden" name="next" value="${next}">
<div class="field"><label for="s-token">Token</label><input type="password" id="s-token" name="token" autocomplete="current-password" required aria-describedby="s-token-hint"><small class="hint" id="s-token-hint">the first line of the server's --token-file; ask whoever runs it</small></div>
<p><button type="submit">Sign in</button></p>
</form>`;
  return layout({ title: 'Sign in', main });
}
