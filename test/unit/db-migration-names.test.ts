import { describe, expect, it } from 'vitest';
import { validateMigrationNames } from '../../src/infra/db/migrate.js';

describe('validateMigrationNames', () => {
  it.each([
    [['001_initial.sql']],
    [['001_initial.sql', '002_add_index.sql', '003_more_2.sql']],
    [['002_b.sql', '001_a.sql']],
  ])('accepts a contiguous series starting at 001: %j', (names) => {
    expect(validateMigrationNames(names)).toEqual([]);
  });

  it.each([
    ['001_Initial.sql', 'not named NNN_name.sql'],
    ['1_initial.sql', 'not named NNN_name.sql'],
    ['001-initial.sql', 'not named NNN_name.sql'],
    ['001_initial.SQL', 'not named NNN_name.sql'],
    ['001_initial.sql.bak', 'not named NNN_name.sql'],
    ['README.md', 'not named NNN_name.sql'],
  ])('reports the badly named file %s', (bad, message) => {
    const problems = validateMigrationNames(['001_ok.sql', bad]);

    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(bad);
    expect(problems[0]).toContain(message);
  });

  it('reports a number used twice, naming both files', () => {
    const problems = validateMigrationNames(['001_a.sql', '002_b.sql', '002_c.sql']);

    expect(problems).toEqual(['migration number 002 is used by 002_b.sql and 002_c.sql']);
  });

  it('reports every missing number in a gap', () => {
    const problems = validateMigrationNames(['001_a.sql', '004_d.sql']);

    expect(problems).toEqual([
      'migration 002 is missing (between 001 and 004)',
      'migration 003 is missing (between 001 and 004)',
    ]);
  });

  it('reports a series that does not start at 001', () => {
    expect(validateMigrationNames(['002_a.sql', '003_b.sql'])).toEqual([
      'migrations must start at 001, the first is 002',
    ]);
  });

  it('reports a series starting at 000', () => {
    expect(validateMigrationNames(['000_a.sql', '001_b.sql'])).toEqual([
      'migrations must start at 001, the first is 000',
    ]);
  });

  it('reports an empty folder', () => {
    expect(validateMigrationNames([])).toEqual(['there are no migration files']);
  });
});
