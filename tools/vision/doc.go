// Package vision is the view_image tool (gptme's vision): a workspace
// image goes to the model as an image content part with the call's
// result (tools.AttachImage), downscaled to a bound and re-encoded.
//
// Trust (DESIGN §8a): view_image reads a file of the workspace, as read
// does, and sends it to the model, nowhere else — a file the shell
// policy's secret rule covers only with the user's approval (secret.go): it neither runs nor
// writes, and reads nothing outside the workspace (the path is resolved
// as the edit tools resolve theirs, symlinks included). What it decodes is
// bounded before decoding: the file's size, then the dimensions its header
// claims (image.DecodeConfig), so a decompression bomb is refused unread.
//
// # Fitting (Fit)
//
// The format is sniffed from the bytes, never the name: PNG, JPEG, GIF
// and WebP; SVG is refused (there is no renderer), anything else is "not
// an image". The file is at most MaxFileBytes and its header's claim at
// most MaxPixels before a pixel is decoded. A PNG or JPEG within the
// longer side (DefaultMaxSide, the imageMaxSide setting) and MaxSentBytes
// is sent as its own bytes; otherwise it is decoded, scaled with
// Catmull-Rom (so a screenshot's text stays legible) and re-encoded (PNG
// for PNG and GIF, JPEG for JPEG and WebP). The call's text says what was
// sent: "(image a.png, 800×600, sent; downscaled from 4000×3000)".
//
// The vision setting: auto sends; on sends and makes a refusal by the
// model's server end the turn (RefusalEndsTurn); off refuses the call.
// Send (Fit, then attach) is shared by screenshot, computer and MCP
// image content.
package vision
