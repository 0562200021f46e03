/** Response shapes shared by several resources (contract A.4–A.8). */
import { z } from 'zod';

export const DateDetails = z
  .object({
    year: z.string(),
    month: z.string(),
    day: z.string(),
    hour: z.string(),
    minutes: z.string(),
    seconds: z.string(),
  })
  .meta({ id: 'DateDetails', description: 'Zero-padded strings (A.5).' });

export const CostDetails = z
  .object({
    currency_symbol: z.string(),
    currency_code: z.string(),
    currency_position: z.enum(['prefix', 'postfix', '']),
    values: z.array(z.string()),
  })
  .meta({ id: 'CostDetails' });

export const ImageSize = z
  .object({
    width: z.int(),
    height: z.int(),
    'mime-type': z.string(),
    filesize: z.int().optional(),
    url: z.string(),
  })
  .meta({ id: 'ImageSize' });

export const Image = z
  .object({
    url: z.string(),
    id: z.int(),
    extension: z.string(),
    width: z.int().optional(),
    height: z.int().optional(),
    filesize: z.int().optional(),
    sizes: z.record(z.string(), ImageSize).optional(),
  })
  .meta({ id: 'Image', description: 'Empty keys are omitted; `sizes` never contains `full` (A.4).' });

/** `image` is an Image or `false` (A.0). */
export const ImageOrFalse = z.union([Image, z.literal(false)]);

export const ApiError = z
  .object({
    code: z.string(),
    message: z.string(),
    data: z.looseObject({
      status: z.int(),
      params: z.union([z.array(z.string()), z.record(z.string(), z.string())]).optional(),
      details: z.union([z.record(z.string(), z.unknown()), z.array(z.never())]).optional(),
    }),
  })
  .meta({ id: 'Error', description: 'Every error, in every negotiated format, is this JSON (A.8).' });

/** Fields of `/events|venues|organizers` list envelopes (A.7). */
export const listPaging = {
  rest_url: z.string(),
  next_rest_url: z.string().optional(),
  previous_rest_url: z.string().optional(),
  total: z.int(),
  total_pages: z.int(),
};

export const GlobalIds = {
  global_id: z.string(),
  global_id_lineage: z.array(z.string()),
};
