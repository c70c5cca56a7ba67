"""A note to the assistant and an instruction triggered by recall in Chinese, Japanese and Korean, matched against
the plain view (`normalise.plain`) of a text that holds any of those scripts (`SCRIPT`)."""

from __future__ import annotations

import re

from ..lazy import LazyPattern

SCRIPT = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")

# The same in Chinese, Japanese and Korean, matched against the plain view (`normalise.plain`: NFKD would take a
# Hangul syllable or a voiced kana apart): "【AIアシスタントへの指示】", "给AI助手的指令：", "AI 어시스턴트에게:".
ADDRESS = LazyPattern(
    # a system's order in brackets ("【システム指示】", "【系统指令】", "[시스템 지시]"): an order, where a log line
    # has a notice ("[システム通知]")
    r"[【\[［(（〔][ \t]*(?:システム|系统|系統|시스템)[ \t]*(?:からの)?"
    r"(?:指示|命令|指令|プロンプト|提示|지시|명령|지침)[ \t]*[】\]］)）〕]"
    # the AI that reads this ("このメモを読んだAIは", "读到这条笔记的AI", "이 메모를 읽은 AI는")
    r"|(?:この|本)(?:メモ|メッセージ|メール|文書|ノート|ページ|文章|記事|テキスト)を"
    r"(?:読んだ|読む|読み込んだ|処理する|要約する)[ \t]*(?:ai|アシスタント|エージェント|モデル)"
    r"|(?:读到|阅读|讀到|閱讀|读取|讀取|处理|處理|看到)(?:这|這|此|本)(?:条|條|封|份|个|個|篇|段|则|則|页|頁)?"
    r"(?:笔记|筆記|消息|邮件|郵件|备忘录|備忘錄|内容|內容|文档|文檔|文字|信息|记忆|記憶)的?"
    r"[ \t]*(?:ai|助手|模型|智能体|智能體)"
    r"|이[ \t]*(?:메모|메시지|메일|문서|글)[를을]?[ \t]*(?:읽은|읽는|처리하는)[ \t]*(?:ai|어시스턴트|에이전트|모델)"
    r"|"
    r"(?:ai|人工知能|人工智能)[ \t]*(?:アシスタント|エージェント|モデル|助手|助理|智能体|模型|어시스턴트|에이전트"
    r"|모델)?[ \t]*(?:へ|に|宛て?)の?(?:指示|命令|メッセージ|お願い)"
    r"|(?:给|致|對|对|給)[ \t]*(?:ai|人工智能)[ \t]*(?:助手|助理|模型|智能体)?(?:的)?"
    r"(?:指令|指示|消息|說明|说明|提示|备注|備註|留言)?[ \t]*[:：]"
    # "给助手的说明：": to the assistant, with a word for a note
    r"|(?:给|致|對|对|給)[ \t]*(?:助手|助理)(?:的)?(?:指令|指示|消息|說明|说明|提示|备注|備註)[ \t]*[:：]"
    r"|ai[ \t]*(?:어시스턴트|에이전트|모델)?[ \t]*에게(?:[ \t]*(?:보내는[ \t]*)?(?:지시|명령|메시지))?[ \t]*[:：]?"
    # "AIアシスタントへ：", "アシスタント宛：": to the assistant, then a colon
    r"|(?:ai|人工知能)?[ \t]*(?:アシスタント|エージェント|助手|助理|ボット|チャットボット)[ \t]*(?:へ|に|宛て?|様)"
    r"[ \t]*[:：]"
    # "助手请注意：": the assistant told to take note
    r"|(?:ai|人工智能)?[ \t]*(?:助手|助理)[ \t]*(?:请|請)?注意[ \t]*[:：]"
    # "AIへ：", "AI宛て：": to the AI alone
    r"|(?:^|[\n。！？])[ \t]*(?:ai|人工知能)[ \t]*(?:へ|宛て?|様)[ \t]*[:：]"
)

# A safeguard skipped or the user's request set aside, in Chinese and Japanese (plain view): "本人確認をせずに"
# (without checking who they are), "无需验证身份", "忽略用户的要求" (ignore what the user asks), "附加在回复末尾"
# (appended to the end of the reply).
SAFEGUARD = LazyPattern(
    r"本人確認(?:を)?(?:せず|しない|なし|不要|省略|スキップ)|(?:无需|無需|不用|不要|跳过|跳過)(?:验证|驗證|核实|核實|确认|確認)"
    r"(?:身份|身分)|忽略用户的(?:要求|请求|指示)|忽略用戶的(?:要求|請求|指示)"
    r"|(?:附加|附)在(?:回复|回覆|回答)(?:的)?(?:末尾|最后|結尾|结尾)"
)

# The same in Chinese, Japanese and Korean (plain view): "每次被读取时", "読み込まれるたびに", "읽을 때마다".
RECALL = LazyPattern(
    # read as a machine reads, not as a person reads a book
    r"(?:每次|每当|每當)[^。！？\n]{0,15}?(?:被读取|被讀取|读取|讀取|加载|載入|召回)"
    r"|(?:メモ|記憶|メモリ|ノート|メッセージ|内容|指示|エントリ)(?:を|が)[^。\n]{0,6}?(?:読む|読み込む|読まれる|読み込まれる"
    r"|参照される|呼び出される|表示される)(?:たび|度)に?|(?:読み込まれ|参照され)たら"
    r"|(?:메모|기억|노트|메시지|내용)[^.\n]{0,6}?(?:읽을|읽힐|불러올|로드될)[ \t]*때마다"
)


# A note to the assistant in Arabic and Hindi (plain view), where the order follows: "إلى المساعد الذي يقرأ هذه
# الملاحظة:" (to the assistant reading this note), "सहायक के लिए निर्देश:" (instructions for the assistant).
ABROAD_SCRIPT = re.compile("[\u0370-\u04ff\u0600-\u06ff\u0900-\u097f\u0980-\u09ff]")
ADDRESS_ABROAD = LazyPattern(
    r"(?:إلى|الى|لل|أيها)\s*(?:ال)?(?:مساعد|ذكاء\s+الاصطناعي|نموذج|وكيل)[^\n:،]{0,40}?(?:[:：]|يقرأ|يقرا|تقرأ)"
    # "أيها المساعد، اعتبر ..." (O assistant, consider ...): the model called, a comma, then the order
    r"|(?:أيها|ايها|يا)\s+(?:ال)?(?:مساعد|نموذج|وكيل)\s*[،,]"
    r"|(?:सहायक|एआई|ai|असिस्टेंट)\s+(?:के\s+लिए|को|हेतु)[^\n:]{0,30}?(?:[:：]|निर्देश|पढ़)"
    # Greek and Bengali: "Προς το AI:", "Για τον βοηθό:", "এআই-এর জন্য নোট:"
    r"|(?:προς|για)\s+\S{2,3}\s+(?:\S{3,14}\s+)?(?:ai|τεχνητή\s+νοημοσύνη|βοηθό|μοντέλο)[^\n:]{0,20}?[:：]"
    # and Greek secrecy: "Μην το αναφέρεις στον διευθυντή", "χωρίς να ενημερώσεις κανέναν"
    r"|μην\s+\S{2,4}\s+(?:αναφέρεις|αναφερεις|πεις|δείξεις|δειξεις)|χωρίς\s+να\s+(?:ενημερώσεις"
    r"|ενημερωσεις|πεις|το\s+πεις)|χωρις\s+να\s+(?:ενημερωσεις|πεις)"
    r"|(?:এআই|ai|সহকারী|অ্যাসিস্ট্যান্ট)(?:-?এর)?\s+(?:জন্য|কে|প্রতি)[^\n:]{0,20}?[:：]"
    # Ukrainian and Russian: "Для ШІ, що читає це:", "Для ИИ, который это читает:"
    r"|(?:для|до)\s+(?:ш[іi]|ии|ai|штучного\s+інтелекту|искусственного\s+интеллекта|асистента|ассистента|моделі"
    r"|модели)\b[^\n:]{0,30}?[:：]"
)
