// The forms' spam check. With a Turnstile site key in config.js, Cloudflare's widget is loaded and rendered in
// each form, and its token is sent as `challenge`. Without one (development), the forms send Turnstile's test
// token, which the API accepts on development workspaces only: a production workspace refuses it.
import { config, t } from './app.js';

export const developmentToken = 'XXXX.DUMMY.TOKEN.XXXX';
const scriptUrl = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

let loading;
function loadTurnstile() {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = scriptUrl;
    script.async = true;
    script.onload = () => resolve(window.turnstile);
    script.onerror = () => reject(new Error('The spam check could not be loaded.'));
    document.head.append(script);
  });
  return loading;
}

/**
 * The spam check of one form, drawn in `container`. `token()` gives the token to send (it throws when the visitor
 * has not passed the widget yet); `reset()` asks for a new one after each attempt, as a token is good once.
 */
export function spamCheck(container, action) {
  if (!config.turnstileSiteKey) {
    container.hidden = true;
    return { mode: 'development', token: async () => developmentToken, reset() {} };
  }
  const widget = loadTurnstile().then((turnstile) =>
    turnstile.render(container, { sitekey: config.turnstileSiteKey, action, language: document.documentElement.lang }),
  );
  return {
    mode: 'turnstile',
    async token() {
      const id = await widget;
      const token = window.turnstile.getResponse(id);
      if (!token) throw new Error(t.spamCheck);
      return token;
    },
    reset() {
      widget.then((id) => window.turnstile.reset(id)).catch(() => {});
    },
  };
}
