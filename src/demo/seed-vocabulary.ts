/**
 * Real English words for the text the seed generator writes where search reads it (DECISIONS §14):
 * product descriptions and post titles and contents. A few hundred words, picked with a skew
 * (seed-rows.ts) so that some are common and most are rare, as in real text: a search benchmark over
 * them then has both a word in every other row and a word in a few.
 */
export const PRODUCT_TEXT_WORDS = (
  'a an the and with for of in on to from by its this that your every each our ' +
  'handcrafted durable lightweight sturdy elegant compact portable rustic modern classic premium soft warm ' +
  'cool quiet bright smooth polished brushed matte glossy waterproof breathable adjustable foldable stackable ' +
  'washable reusable recycled organic natural vintage minimalist ergonomic cozy spacious slim generous heavy ' +
  'oak walnut maple pine bamboo birch cedar teak cotton linen wool silk leather suede canvas denim velvet ' +
  'steel iron copper brass aluminium chrome ceramic porcelain stoneware glass marble granite concrete rubber ' +
  'chair table desk shelf lamp mug bottle kettle teapot skillet knife spoon fork bowl plate jar basket ' +
  'blanket pillow cushion towel rug curtain mirror clock vase candle frame backpack wallet jacket scarf hat ' +
  'boots sneakers shoes gloves umbrella keyboard mouse speaker headphones charger cable notebook pen pencil ' +
  'kitchen garden office bedroom bathroom living room travel outdoor camping hiking picnic dining coffee tea ' +
  'breakfast dinner gift family children home work school weekend summer winter autumn spring morning evening ' +
  'made built designed finished shaped woven stitched tested packed shipped cleaned stored folded carried ' +
  'holds keeps fits lasts carries brews pours heats cools protects supports organizes lights charges plays ' +
  'easy simple quick safe strong long small large tall wide deep round square oval double single extra ' +
  'handle lid base edge strap pocket zipper button drawer hinge wheel cord battery switch panel cover'
).split(' ');

export const POST_TEXT_WORDS = [
  ...new Set(
    (
      'the a an and or but so because while when after before until if then than as of in on at to from by with ' +
      'about into over under between through during without within we you they it this that these those our ' +
      'their my your his her some many few most every each all no more less very quite rather just only also ' +
      'still already often never always sometimes today yesterday tomorrow morning evening night week month year ' +
      'morning coffee garden kitchen city village river mountain forest ocean island bridge street market library ' +
      'museum school office station harbor castle valley desert meadow lake beach field farm cottage theatre ' +
      'book story letter journey recipe photograph painting song poem lesson question answer idea plan mistake ' +
      'friend family neighbor teacher student doctor farmer baker writer traveler stranger child parent team ' +
      'weather rain snow wind storm sunshine cloud fog thunder season spring summer autumn winter holiday ' +
      'bread cheese apple orange lemon honey soup salad pasta rice chocolate cake pie butter garlic pepper ' +
      'walk run climb swim cook bake read write paint sing dance travel visit explore discover learn teach build ' +
      'repair plant grow harvest share remember forget notice wonder imagine describe explain compare choose ' +
      'walked ran climbed cooked baked read wrote painted travelled visited explored discovered learned built ' +
      'found lost kept gave took made saw heard felt thought knew told asked answered waited stayed returned ' +
      'quiet loud bright dark warm cold early late quick slow gentle rough simple strange familiar ancient ' +
      'modern tiny huge narrow wide fresh ripe sweet bitter salty golden silver green blue red yellow purple ' +
      'beautiful careful curious patient honest brave tired happy lucky busy calm lonely proud grateful ' +
      'reading writing cooking walking gardening painting travelling learning building sharing listening ' +
      'history science music language mathematics geography chemistry biology astronomy philosophy economics ' +
      'computer software network database server cache query index latency release deploy test design review'
    ).split(' '),
  ),
];
