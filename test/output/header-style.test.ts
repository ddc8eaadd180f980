import { describe, expect, it } from 'vitest';
import { headerNames, snakeCase } from '../../src/output/header-style.js';

describe('header styles', () => {
  it('keeps dot paths as they are in the path style', () => {
    expect(headerNames(['buyer.name', 'estimatedValue.amountEur'], 'path')).toEqual(['buyer.name', 'estimatedValue.amountEur']);
  });

  it('writes SQL-friendly snake_case names', () => {
    expect(headerNames(['id', 'buyer.name', 'estimatedValue.amountEur', 'publicationDate', 'cpv'], 'snake')).toEqual([
      'id',
      'buyer_name',
      'estimated_value_amount_eur',
      'publication_date',
      'cpv',
    ]);
    expect(snakeCase('URLPath.x-y z')).toBe('url_path_x_y_z');
    expect(snakeCase('Größe.Straße')).toBe('größe_straße');
    expect(snakeCase('2nd.value')).toBe('_2nd_value');
    expect(snakeCase('...')).toBe('_');
  });

  it('tells apart paths that would get the same name', () => {
    expect(headerNames(['buyer.name', 'buyer_name', 'buyerName'], 'snake')).toEqual(['buyer_name', 'buyer_name_2', 'buyer_name_3']);
  });
});
