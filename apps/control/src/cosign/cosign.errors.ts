import { ErrorCatalog } from '@bursar/errors';

export const CosignErrors = new ErrorCatalog({
  authorization_required: {
    status: 400,
    message: 'Send the cosignature as the body field `authorization` or as `Authorization: Bearer <jwt>`',
    hint: "Send the cosignature JWT you received with the authorization, as body field authorization or a Bearer header",
  },
});
