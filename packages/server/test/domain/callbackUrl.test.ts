import { describe, expect, it } from 'vitest';
import { callbackUrlProblem, MAX_CALLBACK_URL_LENGTH } from '../../src/domain/callbackUrl.ts';

describe('callbackUrlProblem', () => {
  it.each([
    'https://merchant.example/hooks/payrail',
    'http://127.0.0.1:8080/hook',
    'https://[2001:db8::1]/x?y=1',
    `https://a.example/${'a'.repeat(MAX_CALLBACK_URL_LENGTH - 18)}`,
  ])('allows %s', (url) => {
    expect(callbackUrlProblem(url)).toBeNull();
  });

  it.each([
    ['ftp://a.example/x', /http/],
    ['not a url', /absolute/],
    ['/relative/path', /absolute/],
    ['javascript:alert(1)', /http/],
    ['https://user:pw@a.example/x', /credentials/],
    [`https://a.example/${'a'.repeat(MAX_CALLBACK_URL_LENGTH - 17)}`, /2048/],
    ['https://a.example/\u0000x', /control/],
    ['https://a.example/x\r\nHost: evil', /control/],
    ['https://a.\texample/x', /control/],
  ])('refuses %j', (url, problem) => {
    expect(callbackUrlProblem(url)).toMatch(problem);
  });
});
