import { admin, http, type HttpResult } from './merchantClient.ts';

export const TEST_PASSWORD = 'correct horse battery';

/** Creates an operator through the admin token; returns its id. */
export async function createOperator(url: string, email: string, role: string, password = TEST_PASSWORD) {
  const res = await admin(url, 'POST', '/admin/v1/operators', { email, role, password, name: email.split('@')[0] });
  if (res.status !== 201) throw new Error(`operator create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.operator_id as string;
}

/** A browser-like console session: the session cookie, and the CSRF token sent on every state change. */
export class ConsoleSession {
  constructor(
    readonly url: string,
    readonly cookie: string,
    readonly csrf: string,
    readonly setCookie: string,
  ) {}

  static async signIn(url: string, email: string, password = TEST_PASSWORD, path = '/console/api/session') {
    const body = path.includes('merchant') ? { api_key: email, secret_key: password } : { email, password };
    const res = await http(url, 'POST', path, { body });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
    const setCookie = res.headers.get('set-cookie') ?? '';
    return new ConsoleSession(url, setCookie.split(';')[0] as string, res.body.csrf_token as string, setCookie);
  }

  static merchant(url: string, apiKey: string, secretKey: string) {
    return ConsoleSession.signIn(url, apiKey, secretKey, '/console/api/merchant/session');
  }

  request(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: string | null; origin?: string } = {},
  ): Promise<HttpResult> {
    const headers: Record<string, string> = { cookie: this.cookie };
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null && method !== 'GET') headers['x-csrf-token'] = csrf;
    if (options.origin) headers.origin = options.origin;
    return http(this.url, method, path, { body, headers });
  }
}
