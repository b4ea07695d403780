/// Where merchants are: real city centres (WGS-84) with the district used for their reverse-geocoded
/// addresses. Mostly mainland China, a share in Hong Kong, Macau and Taiwan, and some border towns so that
/// the region check meets points near a boundary.
struct Place {
    enum Area { case mainland, hongKong, macau, taiwan }

    let area: Area
    let province: String
    let city: String
    let district: String
    let adcode: String
    let latitude: Double
    let longitude: Double
    /// How far (metres, one standard deviation) merchants spread around the centre.
    let spread: Double
    /// Relative share of merchants.
    let weight: Double

    /// GCJ-02 is what Tencent and AMap return here.
    var usesGCJ02: Bool { area != .taiwan }
    /// What the apps' own region check says: the mainland rule.
    var inRegion: Bool { area == .mainland }
    var country: String { area == .taiwan ? "中国台湾" : area == .hongKong ? "中国香港" : area == .macau ? "中国澳门" : "中国" }
}

enum Places {
    static let all: [Place] = [
        mainland("北京市", "北京市", "朝阳区", "110105", 39.9219, 116.4436, 9000, 9),
        mainland("上海市", "上海市", "黄浦区", "310101", 31.2304, 121.4737, 9000, 9),
        mainland("广东省", "广州市", "天河区", "440106", 23.1247, 113.3612, 8000, 7),
        mainland("广东省", "深圳市", "福田区", "440304", 22.5431, 114.0579, 7000, 7),
        mainland("四川省", "成都市", "锦江区", "510104", 30.5728, 104.0668, 8000, 6),
        mainland("重庆市", "重庆市", "渝中区", "500103", 29.5630, 106.5516, 6000, 5),
        mainland("浙江省", "杭州市", "上城区", "330102", 30.2741, 120.1551, 7000, 5),
        mainland("湖北省", "武汉市", "江岸区", "420102", 30.5928, 114.3055, 7000, 5),
        mainland("陕西省", "西安市", "碑林区", "610103", 34.3416, 108.9398, 7000, 4),
        mainland("江苏省", "南京市", "玄武区", "320102", 32.0603, 118.7969, 6000, 4),
        mainland("天津市", "天津市", "和平区", "120101", 39.1172, 117.1950, 6000, 3),
        mainland("江苏省", "苏州市", "姑苏区", "320508", 31.2990, 120.5853, 6000, 4),
        mainland("河南省", "郑州市", "金水区", "410105", 34.7466, 113.6254, 6000, 3),
        mainland("湖南省", "长沙市", "芙蓉区", "430102", 28.2282, 112.9388, 6000, 3),
        mainland("广东省", "东莞市", "南城街道", "441900", 23.0207, 113.7518, 6000, 3),
        mainland("辽宁省", "沈阳市", "和平区", "210102", 41.8057, 123.4315, 6000, 2),
        mainland("山东省", "青岛市", "市南区", "370202", 36.0671, 120.3826, 4000, 2),
        mainland("安徽省", "合肥市", "蜀山区", "340104", 31.8206, 117.2272, 6000, 2),
        mainland("广东省", "佛山市", "禅城区", "440604", 23.0215, 113.1214, 5000, 2),
        mainland("山东省", "济南市", "历下区", "370102", 36.6512, 117.1201, 5000, 2),
        mainland("辽宁省", "大连市", "中山区", "210202", 38.9140, 121.6147, 4000, 1.5),
        mainland("福建省", "福州市", "鼓楼区", "350102", 26.0745, 119.2965, 5000, 1.5),
        mainland("福建省", "厦门市", "思明区", "350203", 24.4798, 118.0894, 3000, 1.5),
        mainland("云南省", "昆明市", "五华区", "530102", 25.0389, 102.7183, 5000, 1.5),
        mainland("黑龙江省", "哈尔滨市", "道里区", "230102", 45.8038, 126.5349, 5000, 1.5),
        mainland("吉林省", "长春市", "朝阳区", "220104", 43.8171, 125.3235, 5000, 1),
        mainland("河北省", "石家庄市", "长安区", "130102", 38.0428, 114.5149, 5000, 1),
        mainland("广西壮族自治区", "南宁市", "青秀区", "450103", 22.8170, 108.3665, 5000, 1),
        mainland("江西省", "南昌市", "东湖区", "360102", 28.6820, 115.8579, 5000, 1),
        mainland("贵州省", "贵阳市", "云岩区", "520103", 26.6470, 106.6302, 4000, 1),
        mainland("山西省", "太原市", "迎泽区", "140106", 37.8706, 112.5489, 4000, 1),
        mainland("新疆维吾尔自治区", "乌鲁木齐市", "天山区", "650102", 43.8256, 87.6168, 5000, 0.8),
        mainland("甘肃省", "兰州市", "城关区", "620102", 36.0611, 103.8343, 4000, 0.6),
        mainland("内蒙古自治区", "呼和浩特市", "新城区", "150102", 40.8424, 111.7490, 4000, 0.6),
        mainland("浙江省", "宁波市", "海曙区", "330203", 29.8683, 121.5440, 5000, 1.5),
        mainland("江苏省", "无锡市", "梁溪区", "320213", 31.4912, 120.3119, 5000, 1.5),
        mainland("浙江省", "温州市", "鹿城区", "330302", 27.9943, 120.6994, 4000, 1),
        mainland("海南省", "海口市", "龙华区", "460106", 20.0440, 110.1999, 4000, 0.6),
        mainland("海南省", "三亚市", "吉阳区", "460203", 18.2528, 109.5119, 3000, 0.4),
        mainland("西藏自治区", "拉萨市", "城关区", "540102", 29.6520, 91.1721, 3000, 0.2),
        mainland("青海省", "西宁市", "城中区", "630103", 36.6171, 101.7782, 3000, 0.3),
        mainland("宁夏回族自治区", "银川市", "兴庆区", "640104", 38.4872, 106.2309, 3000, 0.3),
        // Border and boundary towns: the region check has work to do here.
        mainland("广东省", "珠海市", "香洲区", "440402", 22.2707, 113.5767, 3000, 0.6),
        mainland("广东省", "深圳市", "罗湖区", "440303", 22.5484, 114.1315, 2000, 0.6),
        mainland("云南省", "德宏傣族景颇族自治州", "瑞丽市", "533102", 24.0128, 97.8517, 2500, 0.15),
        mainland("辽宁省", "丹东市", "振兴区", "210603", 40.1290, 124.3545, 2500, 0.15),
        mainland("黑龙江省", "黑河市", "爱辉区", "231102", 50.2454, 127.5286, 2000, 0.1),
        mainland("新疆维吾尔自治区", "喀什地区", "喀什市", "653101", 39.4704, 75.9898, 3000, 0.1),
        Place(area: .hongKong, province: "香港特别行政区", city: "香港特别行政区", district: "油尖旺区", adcode: "810005",
              latitude: 22.3193, longitude: 114.1694, spread: 1500, weight: 1.0),
        Place(area: .hongKong, province: "香港特别行政区", city: "香港特别行政区", district: "中西区", adcode: "810001",
              latitude: 22.2819, longitude: 114.1577, spread: 1000, weight: 0.6),
        Place(area: .macau, province: "澳门特别行政区", city: "澳门特别行政区", district: "花地玛堂区", adcode: "820001",
              latitude: 22.2067, longitude: 113.5467, spread: 500, weight: 0.5),
        Place(area: .taiwan, province: "台湾省", city: "台北市", district: "信义区", adcode: "710000",
              latitude: 25.0330, longitude: 121.5654, spread: 3000, weight: 0.6),
        Place(area: .taiwan, province: "台湾省", city: "高雄市", district: "前金区", adcode: "710000",
              latitude: 22.6273, longitude: 120.3014, spread: 2500, weight: 0.3),
        Place(area: .taiwan, province: "台湾省", city: "台中市", district: "西屯区", adcode: "710000",
              latitude: 24.1477, longitude: 120.6736, spread: 3000, weight: 0.2),
    ]

    /// Running totals of the weights, for picking by weight with one random number.
    static let cumulativeWeights: [Double] = {
        var total = 0.0
        return all.map { total += $0.weight; return total }
    }()

    static func pick(_ random: inout SplitMix64) -> Place {
        let target = random.unit() * cumulativeWeights[cumulativeWeights.count - 1]
        let index = cumulativeWeights.firstIndex { $0 > target } ?? all.count - 1
        return all[index]
    }

    private static func mainland(
        _ province: String, _ city: String, _ district: String, _ adcode: String,
        _ latitude: Double, _ longitude: Double, _ spread: Double, _ weight: Double
    ) -> Place {
        Place(area: .mainland, province: province, city: city, district: district, adcode: adcode,
              latitude: latitude, longitude: longitude, spread: spread, weight: weight)
    }

    static let streets = ["人民路", "解放路", "中山路", "建设路", "和平路", "新华路", "长江路", "胜利路", "文化路",
                          "青年路", "朝阳路", "光明路", "东风路", "迎宾大道", "学府路", "滨江路"]
    static let shops = ["便利店", "超市", "面馆", "咖啡", "水果店", "药房", "烘焙坊", "餐厅", "茶饮", "五金店",
                        "理发店", "花店", "火锅", "书店"]
    static let shopNames = ["好邻居", "万家", "老街坊", "鑫源", "福满多", "阳光", "佳美", "金福", "同心", "惠民",
                            "悦来", "和顺"]
    static let visitNotes = ["例行回访，商户营业正常", "设备巡检", "培训收银员使用新功能", "处理商户投诉",
                             "更换打印纸", "门头照片更新", "商户反馈到账慢"]
    static let unbindReasons = ["merchant_closed", "device_replaced", "moved_to_branch", "contract_ended"]
}
