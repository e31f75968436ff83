import { describe, expect, it } from 'vitest';
import { UI_SCRIPT } from '../../functions/http/ui/ui-script';

describe('the status page script', () => {
  // It is a string no compiler sees: a syntax error would only show as a page that never fills in.
  it('is valid JavaScript', () => {
    expect(() => new Function(UI_SCRIPT)).not.toThrow();
  });
});
