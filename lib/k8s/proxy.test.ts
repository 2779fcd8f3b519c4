import { describe, expect, it } from 'vitest';
import { chooseProxy, parseNoProxy, proxyCredentials, useProxy } from './proxy';

const proxied = (host: string, port: string, noProxy: string): boolean => useProxy(host, port, parseNoProxy(noProxy));

describe('NO_PROXY, as Go\'s httpproxy matches it', () => {
  it.each([
    // [host, port, NO_PROXY, proxied?]
    ['api.example.com', '443', '', true],
    ['api.example.com', '443', '*', false],
    ['api.example.com', '443', 'example.com', false],
    ['example.com', '443', 'example.com', false],
    ['api.example.com', '443', '.example.com', false],
    ['example.com', '443', '.example.com', true],
    ['api.example.com', '443', '*.example.com', false],
    ['example.com', '443', '*.example.com', true],
    ['badexample.com', '443', 'example.com', true],
    ['API.Example.COM', '443', 'example.com', false],
    ['api.example.com', '6443', 'example.com:6443', false],
    ['api.example.com', '443', 'example.com:6443', true],
    ['10.1.2.3', '443', '10.0.0.0/8', false],
    ['11.1.2.3', '443', '10.0.0.0/8', true],
    ['10.1.2.3', '443', '10.1.2.3', false],
    ['10.1.2.3', '6443', '10.1.2.3:443', true],
    ['10.1.2.3', '443', '10.1.2.3:443', false],
    ['fd00::5', '443', 'fd00::/8', false],
    ['[fd00::5]', '443', '[fd00::5]:443', false],
    ['fd00::5', '443', 'fd00:0::0005', false],
    ['api.example.com', '443', ' other.org , example.com ', false],
    // Loopback never goes through the proxy, whatever NO_PROXY says.
    ['localhost', '443', '', false],
    ['127.0.0.1', '443', '', false],
    ['127.9.9.9', '443', '', false],
    ['[::1]', '443', '', false],
    ['::ffff:127.0.0.1', '443', '', false],
    ['::2', '443', '', true],
  ])('%s:%s with NO_PROXY=%j → proxied %s', (host, port, noProxy, expected) => {
    expect(proxied(host, port, noProxy)).toBe(expected);
  });
});

describe('chooseProxy', () => {
  it('reads HTTPS_PROXY for https servers and HTTP_PROXY for http ones, upper case first', () => {
    expect(chooseProxy('https://k8s.example.com', undefined, { HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' }, 'c')).toEqual({ ok: true, proxy: { url: 'http://a:1/', source: 'HTTPS_PROXY' } });
    expect(chooseProxy('https://k8s.example.com', undefined, { HTTPS_PROXY: '', https_proxy: 'http://b:2' }, 'c')).toEqual({ ok: true, proxy: { url: 'http://b:2/', source: 'https_proxy' } });
    expect(chooseProxy('https://k8s.example.com', undefined, { HTTP_PROXY: 'http://a:1' }, 'c')).toEqual({ ok: true, proxy: null });
    expect(chooseProxy('http://k8s.example.com', undefined, { HTTP_PROXY: 'proxy.corp:3128' }, 'c')).toEqual({ ok: true, proxy: { url: 'http://proxy.corp:3128/', source: 'HTTP_PROXY' } });
    expect(chooseProxy('https://k8s.example.com:6443', undefined, { HTTPS_PROXY: 'http://a:1', NO_PROXY: 'k8s.example.com:6443' }, 'c')).toEqual({ ok: true, proxy: null });
  });

  it('lets proxy-url win and hands SOCKS5 over for remote DNS', () => {
    expect(chooseProxy('https://127.0.0.1:6443', 'socks5://u:p@10.0.0.9:1080', { HTTPS_PROXY: 'http://a:1', NO_PROXY: '*' }, 'c')).toEqual({
      ok: true,
      proxy: { url: 'socks5h://u:p@10.0.0.9:1080', source: 'proxy-url' },
    });
    expect(chooseProxy('https://k8s.example.com', undefined, { HTTPS_PROXY: 'socks5://10.0.0.9:1080' }, 'c')).toMatchObject({ ok: true, proxy: { url: 'socks5h://10.0.0.9:1080' } });
  });

  it('refuses what kubectl refuses, naming the field, not the URL', () => {
    expect(chooseProxy('https://k8s.example.com', 'socks4://u:secretpw@x:1', {}, 'prod')).toEqual({
      ok: false,
      message: 'The proxy-url of cluster "prod" uses the unsupported proxy scheme "socks4" (kubectl supports http, https and socks5).',
    });
  });

  it('hands the credentials to the redactor', () => {
    expect(proxyCredentials('http://alice:s%40cret@proxy:3128')).toEqual(['s@cret', 's%40cret', 'alice:s@cret']);
    expect(proxyCredentials('http://proxy:3128')).toEqual([]);
  });
});
