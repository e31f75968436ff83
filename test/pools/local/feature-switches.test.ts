import { describe, expect, it } from 'vitest';
import { warmChromiumArgs } from '../../../functions/pools/local/chromium-process';
import { withFeatures } from '../../../functions/pools/local/feature-switches';

describe('withFeatures', () => {
  it('adds one switch with the features when the arguments have none', () => {
    expect(withFeatures(['--a'], 'disable-features', ['X', 'Y'])).toEqual(['--a', '--disable-features=X,Y']);
  });

  it('joins every switch of the kind into one at the place of the first, each feature once', () => {
    expect(
      withFeatures(['--a', '--disable-features=P,X', '--b', '--disable-features=Q'], 'disable-features', [
        'X',
        'Y',
      ]),
    ).toEqual(['--a', '--disable-features=P,X,Q,Y', '--b']);
  });

  it('joins a switch spelt as chromedriver and Chromium also take it (one dash, or none for chromedriver to add two)', () => {
    expect(
      withFeatures(['-disable-features=P', 'disable-features=Q', '--enable-features=Y'], 'disable-features', [
        'X',
        'Y',
      ]),
    ).toEqual(['--disable-features=P,Q,X', '--enable-features=Y']);
  });

  it('leaves out a feature the arguments turn the other way', () => {
    expect(withFeatures(['--enable-features=X'], 'disable-features', ['X', 'Y'])).toEqual([
      '--enable-features=X',
      '--disable-features=Y',
    ]);
  });

  it('changes nothing with no features to join', () => {
    expect(withFeatures(['--a', '--disable-features='], 'disable-features', [])).toEqual([
      '--a',
      '--disable-features=',
    ]);
  });
});

describe('warmChromiumArgs', () => {
  it('joins chromedriver’s disabled features with the pool’s, as chromedriver does for a cold browser', () => {
    const args = warmChromiumArgs(['--disable-features=Z', '--enable-features=E']);
    expect(args.filter((arg) => /^--(disable|enable)-features=/.test(arg))).toEqual([
      '--disable-features=IgnoreDuplicateNavs,Prewarm,Z',
      '--enable-features=E',
    ]);
  });
});
