import { unusableInput } from './unusable-input.middleware';

describe('unusableInput', () => {
  it.each<[string, string, RegExp]>([
    ['a NUL character', '{"a":"x\\u0000"}', /NUL/],
    ['a lone high surrogate in a value', '{"a":["ok","\\ud800"]}', /surrogate/],
    ['a lone low surrogate in a key', '{"\\udc00":1}', /surrogate/],
    ['a number past the largest double', '{"a":{"b":1e999}}', /finite/],
    ['a negative one', '[-1e400]', /finite/],
  ])('refuses %s', (_name, text, problem) => {
    expect(unusableInput(JSON.parse(text))).toMatch(problem);
  });

  it('accepts well-formed text, paired surrogates and every finite number', () => {
    expect(unusableInput(JSON.parse('{"a":"\\ud83d\\ude00","\\u00e9":[1e308,-0,5e-324,null,true],"b":{}}'))).toBeNull();
  });
});
