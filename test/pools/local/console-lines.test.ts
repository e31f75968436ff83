/** A browser console as text: each DevTools event that carries an entry, as one line with its place. */
import { describe, expect, it } from 'vitest';
import { consoleLine } from '../../../functions/pools/local/console-lines';

const AT = Date.UTC(2026, 11, 6, 8, 0, 0, 123);

describe('console lines', () => {
  it('writes a console call with its level, its arguments as DevTools shows them, and where it was made', () => {
    const line = consoleLine('Runtime.consoleAPICalled', {
      type: 'warning',
      timestamp: AT,
      args: [
        { type: 'string', value: 'total' },
        { type: 'number', value: 41 },
        { type: 'object', subtype: 'null', value: null },
        { type: 'undefined' },
        { type: 'number', unserializableValue: 'NaN' },
        { type: 'object', className: 'Object', description: 'Object' },
      ],
      stackTrace: { callFrames: [{ url: 'http://127.0.0.1:9/cart', lineNumber: 2, columnNumber: 14 }] },
    });
    expect(line).toBe(
      '2026-12-06T08:00:00.123Z warning console.warning http://127.0.0.1:9/cart:3:15 total 41 null undefined NaN Object\n',
    );
  });

  it('writes an uncaught exception as an error, its text continued on indented lines', () => {
    const line = consoleLine('Runtime.exceptionThrown', {
      timestamp: AT,
      exceptionDetails: {
        text: 'Uncaught',
        url: 'http://127.0.0.1:9/cart',
        lineNumber: 0,
        columnNumber: 4,
        exception: { type: 'object', subtype: 'error', description: 'TypeError: x is null\n    at cart:1:5' },
      },
    });
    expect(line).toBe(
      '2026-12-06T08:00:00.123Z error exception http://127.0.0.1:9/cart:1:5 TypeError: x is null\n      at cart:1:5\n',
    );
  });

  it('writes what the browser reports itself, with its source', () => {
    const line = consoleLine('Log.entryAdded', {
      entry: {
        source: 'network',
        level: 'error',
        text: 'Failed to load resource: the server responded with a status of 404 (Not Found)',
        timestamp: AT,
        url: 'http://127.0.0.1:9/missing.json',
      },
    });
    expect(line).toBe(
      '2026-12-06T08:00:00.123Z error network http://127.0.0.1:9/missing.json Failed to load resource: the server responded with a status of 404 (Not Found)\n',
    );
  });

  it('leaves other events out', () => {
    expect(consoleLine('Network.requestWillBeSent', {})).toBeUndefined();
  });
});
